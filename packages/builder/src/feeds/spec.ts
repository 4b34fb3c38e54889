import type { AsnFeed, PrefixFeed } from './types.js';

export interface FeedSpec { readonly id: string; readonly path: string; readonly url: string; readonly kind: 'prefix' | 'asn'; readonly parse: (data: Uint8Array) => PrefixFeed<unknown> | AsnFeed<unknown> }
