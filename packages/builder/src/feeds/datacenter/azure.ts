/**
 * Microsoft Azure service tags (`ServiceTags_Public_<date>.json`):
 * `{changeNumber, cloud, values:[{name, id, properties:{addressPrefixes}}]}`.
 * The tag `AzureCloud` (all of Azure) is read, else the union of the
 * regional `AzureCloud.<region>` tags. No date in the file (`changeNumber`
 * goes into the note).
 *
 * The official URL is a download page, and the JSON's own URL changes
 * weekly (it carries the date): `--fetch` downloads the page and takes the
 * newest `ServiceTags_Public_YYYYMMDD.json` it links (the locator).
 *
 * @module
 */
import { FeedError } from '../../errors.js';
import { defineFeed } from '../declare.js';
import { isObject, jsonObjectWithArrays } from '../read/json.js';
import { newestLink } from '../read/links.js';
import type { PrefixesFound } from '../types.js';
import { PUBLISHED, datacenterValue, jsonCidrs, type DatacenterValue, type JsonCidr } from './values.js';

export const AZURE = datacenterValue('Microsoft Azure');

/**
 * The `AzureCloud` tag, else all `AzureCloud.<region>` tags.
 *
 * @throws FeedError when `values` is not an array or has no AzureCloud tag.
 */
export function parseAzureServiceTags(data: Uint8Array | string, feed: string): PrefixesFound<DatacenterValue> {
  const doc = jsonObjectWithArrays(feed, data, ['values']);
  const tags = (doc.values as unknown[]).flatMap((v, i) =>
    isObject(v) && typeof v.name === 'string' ? [{ name: v.name, i, v }] : [],
  );
  const whole = tags.filter((t) => t.name === 'AzureCloud');
  const chosen = whole.length > 0 ? whole : tags.filter((t) => t.name.startsWith('AzureCloud.'));
  if (chosen.length === 0) throw new FeedError(feed, 'feed_format', 'no AzureCloud or AzureCloud.<region> service tag');
  const items: JsonCidr[] = [];
  for (const t of chosen) {
    const list = isObject(t.v.properties) ? t.v.properties.addressPrefixes : undefined;
    const where = `values[${t.i}](${t.name}).properties.addressPrefixes`;
    if (!Array.isArray(list)) items.push({ value: list, where });
    else list.forEach((p: unknown, j) => items.push({ value: p, where: `${where}[${j}]` }));
  }
  const tagNote = whole.length > 0 ? 'tag AzureCloud' : `${chosen.length} regional AzureCloud.* tags`;
  const change = typeof doc.changeNumber === 'number' ? `changeNumber ${doc.changeNumber}` : 'no changeNumber';
  const cloud = typeof doc.cloud === 'string' ? `, cloud ${doc.cloud}` : '';
  return { ...jsonCidrs(feed, items, AZURE), note: `${tagNote}; ${change}${cloud}; the file states no date` };
}

export const AZURE_SERVICE_TAGS = defineFeed({
  ...PUBLISHED,
  id: 'azure',
  publisher: 'Microsoft',
  url: 'https://www.microsoft.com/en-us/download/details.aspx?id=56519',
  licence: 'Microsoft download terms',
  format: 'JSON {changeNumber, cloud, values[].name, values[].properties.addressPrefixes}',
  refresh: '7d',
  path: 'datacenter/azure-ServiceTags_Public.json',
  download: {
    url: 'https://www.microsoft.com/en-us/download/details.aspx?id=56519',
    locate: newestLink(/ServiceTags_Public_(\d{8})\.json$/, 'ServiceTags_Public_<date>.json'),
  },
  parse: parseAzureServiceTags,
});
