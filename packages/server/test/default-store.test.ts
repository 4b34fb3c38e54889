/**
 * The default store location that `ipintel serve` and `ipintel keys` share
 * (the commands themselves are tested in packages/cli/test).
 */
import { describe, expect, it } from 'vitest';
import { defaultStoreSpec } from '../src/store/open.js';

describe('default store location', () => {
  it('is $IPINTEL_STORE, else sqlite under $XDG_DATA_HOME, else ~/.local/share', () => {
    expect(defaultStoreSpec({ IPINTEL_STORE: 'redis://h:1' })).toBe('redis://h:1');
    expect(defaultStoreSpec({ XDG_DATA_HOME: '/data' })).toBe('sqlite:/data/ipintel/store.sqlite');
    expect(defaultStoreSpec({})).toMatch(/^sqlite:.*\/\.local\/share\/ipintel\/store\.sqlite$/);
  });
});
