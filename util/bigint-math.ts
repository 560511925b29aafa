/** Integer helpers on bigint that JavaScript's operators do not give. */

/** a / b rounded toward negative infinity (bigint `/` truncates toward zero): days before 1970 stay negative. */
export function floorDiv(a: bigint, b: bigint): bigint {
  const q = a / b;
  return a % b !== 0n && a < 0n !== b < 0n ? q - 1n : q;
}
