import ts from 'typescript';

/** Every name an entry point (a source file path) exports, values and types alike, sorted. */
export function exportedNames(entry: string): string[] {
  const program = ts.createProgram([entry], {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2023,
    experimentalDecorators: true,
    noEmit: true,
    types: [],
  });
  const checker = program.getTypeChecker();
  const module = checker.getSymbolAtLocation(program.getSourceFile(entry)!)!;
  return checker
    .getExportsOfModule(module)
    .map((symbol) => symbol.name)
    .sort();
}
