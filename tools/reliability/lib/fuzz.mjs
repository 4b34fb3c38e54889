// Fuzzed address strings (seeded, so every run sends the same ones) and the
// oracle they are judged by: node:net's isIP, with the two differences our
// parsing policy documents (docs/parsing.md): zone ids (`%eth0`) are refused,
// and IPv4-mapped IPv6 is answered as the IPv4 address.
import { isIP } from 'node:net';
import { mulberry32 } from '../../bench/common.mjs';

const HEX = '0123456789abcdefABCDEF';
const NOISE = ['0', '1', '9', 'a', 'F', 'g', ':', '.', '%', '[', ']', '/', ' ', '\t', '\n', '\u0000', '-', '+', 'x', '٣', '１', '\u00a0', '::', '255', '256', '00', 'ffff', '\ud800'];

/** `count` address-like strings from `seed`. */
export function* fuzzAddresses(count, seed) {
  const next = mulberry32(seed);
  const int = (n) => next() % n;
  const pick = (a) => a[int(a.length)];
  const v4 = () => [0, 1, 2, 3].map(() => String(int(5) === 0 ? int(10) : int(256))).join('.');
  const group = () => Array.from({ length: 1 + int(4) }, () => pick(HEX)).join('');
  const v6 = () => {
    const groups = Array.from({ length: 8 }, group);
    if (int(4) === 0) groups.splice(6, 2, v4());
    if (int(6) === 0) return `::ffff:${v4()}`;
    if (int(2) === 0) {
      const at = int(groups.length);
      const len = 1 + int(groups.length - at);
      const rest = [...groups.slice(0, at), '', ...groups.slice(at + len)];
      const text = rest.join(':');
      return text.startsWith(':') ? `:${text}` : text.endsWith(':') ? `${text}:` : text;
    }
    return groups.join(':');
  };
  const mutate = (s) => {
    let t = s;
    for (let k = 1 + int(3); k > 0; k--) {
      const at = int(t.length + 1);
      const op = int(3);
      if (op === 0) t = t.slice(0, at) + pick(NOISE) + t.slice(at);
      else if (op === 1) t = t.slice(0, at) + t.slice(at + 1);
      else t = t.slice(0, at) + pick(NOISE) + t.slice(at + 1);
    }
    return t;
  };
  for (let i = 0; i < count; i++) {
    const kind = int(10);
    if (kind < 3) yield v4();
    else if (kind < 6) yield v6();
    else if (kind < 9) yield mutate(int(2) === 0 ? v4() : v6());
    else yield Array.from({ length: int(48) }, () => pick(NOISE)).join('');
  }
}

/** The address as 16 canonical bytes' text (WHATWG URL's IPv6 serialisation), IPv4 as mapped IPv6. */
function value(text) {
  const v6 = isIP(text) === 4 ? `::ffff:${text}` : text;
  return new URL(`http://[${v6}]/`).hostname;
}

/**
 * Judges one answer element for input `s`: '' when right, else why it is wrong.
 * `element` is `{ ip, ... }` for a result or `{ ip, error: { code, message } }`.
 */
export function judge(s, element) {
  const family = isIP(s);
  const valid = family !== 0 && !s.includes('%');
  if (element === null || typeof element !== 'object') return 'untyped: not an object';
  if (element.error !== undefined) {
    if (element.error?.code !== 'invalid_ip' || typeof element.error?.message !== 'string') return `untyped: ${JSON.stringify(element.error).slice(0, 80)}`;
    return valid ? 'wrong: a valid address refused' : '';
  }
  if (!valid) return 'wrong: an invalid string answered';
  if (typeof element.ip !== 'string' || isIP(element.ip) === 0) return 'wrong: no address in the result';
  return value(element.ip) === value(s) ? '' : `wrong: ${element.ip} for ${s}`;
}
