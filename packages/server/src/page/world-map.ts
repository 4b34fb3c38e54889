/**
 * The web page's world map, drawn offline: the country outlines of Natural
 * Earth at 1:110m (public domain), as redistributed in TopoJSON by the
 * `world-atlas` package (ISC), turned once into one SVG path in an
 * equirectangular projection (docs/attribution.md).
 *
 * Projection: x = longitude + 180, y = 90 - latitude, in a 360 x 180 view
 * box, so the page places a marker with the same two sums (page.js) and a
 * test can check both sides agree. Coordinates are rounded to 0.1 degree
 * (about 11 km at the equator, finer than the data's 1:110m scale).
 *
 * TopoJSON in short: `arcs` are shared polylines, delta-encoded in quantized
 * units (`transform` maps them back to degrees); a polygon ring lists arc
 * indexes, `~i` meaning arc i reversed, and consecutive arcs share their
 * joining point.
 *
 * @module
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

/** Width and height of the map's view box (degrees of longitude and latitude). */
export const MAP_WIDTH = 360;
export const MAP_HEIGHT = 180;

/** Where a point lands on the map (the page's marker uses the same rule). */
export function project(longitude: number, latitude: number): [x: number, y: number] {
  return [longitude + 180, 90 - latitude];
}

interface Topology {
  readonly transform: { readonly scale: [number, number]; readonly translate: [number, number] };
  readonly arcs: readonly (readonly [number, number][])[];
  readonly objects: Readonly<Record<string, { readonly geometries: readonly Geometry[] }>>;
}

type Geometry =
  | { readonly type: 'Polygon'; readonly arcs: readonly (readonly number[])[] }
  | { readonly type: 'MultiPolygon'; readonly arcs: readonly (readonly (readonly number[])[])[] }
  | { readonly type: null | string; readonly arcs?: unknown };

/** Arcs decoded to [longitude, latitude] points. */
function decodeArcs(topo: Topology): [number, number][][] {
  const [sx, sy] = topo.transform.scale;
  const [tx, ty] = topo.transform.translate;
  return topo.arcs.map((arc) => {
    let x = 0;
    let y = 0;
    return arc.map(([dx, dy]): [number, number] => {
      x += dx;
      y += dy;
      return [x * sx + tx, y * sy + ty];
    });
  });
}

/** One ring's points, from its arc indexes. */
function ringPoints(indexes: readonly number[], arcs: readonly [number, number][][]): [number, number][] {
  const out: [number, number][] = [];
  for (const i of indexes) {
    const arc = i >= 0 ? arcs[i] : arcs[~i]?.slice().reverse();
    if (arc === undefined) throw new Error(`world map: arc ${i} does not exist`);
    // Consecutive arcs share the point where they join.
    out.push(...(out.length === 0 ? arc : arc.slice(1)));
  }
  return out;
}

const fmt = (v: number): string => String(Math.round(v * 10) / 10);

/** A ring as SVG path commands; a step across the antimeridian starts a new subpath. */
function ringPath(points: readonly [number, number][]): string {
  let d = '';
  let last = '';
  let prevLon: number | undefined;
  for (const [lon, lat] of points) {
    const [x, y] = project(lon, lat);
    const xy = `${fmt(x)} ${fmt(y)}`;
    const jump = prevLon === undefined || Math.abs(lon - prevLon) > 180;
    prevLon = lon;
    if (!jump && xy === last) continue;
    d += `${jump ? 'M' : 'L'}${xy}`;
    last = xy;
  }
  return d === '' ? '' : `${d}Z`;
}

/** The SVG path (`d`) of every polygon of `object` in `topo`. */
export function topologyPath(topo: Topology, object: string): string {
  const collection = topo.objects[object];
  if (collection === undefined) throw new Error(`world map: the topology has no object ${JSON.stringify(object)}`);
  const arcs = decodeArcs(topo);
  const parts: string[] = [];
  for (const g of collection.geometries) {
    const polygons = g.type === 'Polygon' ? [g.arcs as readonly (readonly number[])[]] : g.type === 'MultiPolygon' ? (g.arcs as readonly (readonly (readonly number[])[])[]) : [];
    for (const rings of polygons) for (const ring of rings) parts.push(ringPath(ringPoints(ring, arcs)));
  }
  return parts.join('');
}

let cached: string | undefined;

/** The map as the page fetches it (`page/world.json`): `{"width","height","d"}`, built once. */
export function worldMapJson(): string {
  if (cached === undefined) {
    const file = createRequire(import.meta.url).resolve('world-atlas/countries-110m.json');
    const topo = JSON.parse(readFileSync(file, 'utf8')) as Topology;
    cached = JSON.stringify({ width: MAP_WIDTH, height: MAP_HEIGHT, d: topologyPath(topo, 'countries') });
  }
  return cached;
}
