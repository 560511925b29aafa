/** Orders Iceberg and Paimon compare values by: strings by code point (= UTF-8 byte order), bytes unsigned. */

/** Code point order of two strings (JS `<` compares UTF-16 units, which misplaces characters above U+FFFF). */
export function compareCodePoints(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    // surrogates (U+D800–DFFF) encode code points above every BMP unit: lift them over U+E000–FFFF
    const fx = x >= 0xd800 ? (x < 0xe000 ? x + 0x2000 : x - 0x800) : x;
    const fy = y >= 0xd800 ? (y < 0xe000 ? y + 0x2000 : y - 0x800) : y;
    return fx - fy;
  }
  return a.length - b.length;
}

/** Unsigned lexicographic byte order, a shorter prefix first. */
export function compareBytes(a: Uint8Array, b: Uint8Array): number {
  return Buffer.compare(a, b);
}
