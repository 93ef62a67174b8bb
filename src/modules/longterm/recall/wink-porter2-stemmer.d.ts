/** The English Porter2 (Snowball English) stemmer of the `wink-porter2-stemmer` package. */
declare module 'wink-porter2-stemmer' {
  /** The stem of one lower-case English word. */
  const stem: (word: string) => string;
  export default stem;
}
