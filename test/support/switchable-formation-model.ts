import {
  FormationAnswerError,
  type MemoryFormationModel,
  PlainStatementsFormationModel,
} from 'nest-agent-memory';

/** The demo formation model, whose extraction fails (an answer that is not JSON) while `failing`. */
export class SwitchableModel implements MemoryFormationModel {
  readonly id = 'switchable';
  failing = true;
  private readonly inner = new PlainStatementsFormationModel();
  async extract(input: Parameters<MemoryFormationModel['extract']>[0]) {
    if (this.failing) throw new FormationAnswerError('extraction', 'not JSON');
    return this.inner.extract(input);
  }
  choose(input: Parameters<MemoryFormationModel['choose']>[0]) {
    return this.inner.choose(input);
  }
}
