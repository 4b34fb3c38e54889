/**
 * A few fields on the IPv4 lookup's path are declared with `declare` (no
 * field definition emitted) and assigned once in the constructor, so that V8
 * treats them as constants (snapshot/v4-index.ts; docs/design.md,
 * "Twenty-second round"). A field declared that way and set only later would
 * appear on the object when first set, and the objects check() reads would
 * change shape in service. This test holds the rule: the loaded snapshot's
 * objects have every property from the start, before and after the calls
 * that fill their lazy parts.
 */
import { describe, expect, it } from 'vitest';
import { defaultSnapshotPath, openSync, type IpIntel } from '../src/index.js';

/** Own property names of the objects a check goes through, by where they sit. */
function shapes(intel: IpIntel): Record<string, string[]> {
  const x = intel as unknown as { index: { v4: object } & object; tables: object };
  const names = (o: object): string[] => Reflect.ownKeys(o).map(String).sort();
  return { intel: names(intel), index: names(x.index), v4: names(x.index.v4), tables: names(x.tables) };
}

describe('object shapes', () => {
  const path = defaultSnapshotPath();
  it('a loaded snapshot has the same properties before and after its lazy parts are made', () => {
    const intel = openSync(path);
    const before = shapes(intel);
    expect(before.intel).toContain('explainer');
    expect(before.index).toContain('v6Made');
    intel.check('8.8.8.8');
    intel.check('2001:4860:4860::8888'); // the IPv6 index and the tail's answer slots
    intel.match('2001:4860:4860::8888');
    intel.share(); // the shared copy
    if (intel.canExplain()) intel.check('8.8.8.8', { explain: true }); // the explainer
    expect(shapes(intel)).toEqual(before);
  });
});
