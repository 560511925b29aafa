/** commander's collector for a repeatable flag (`-o a=1 -o b=2`, `--location-map …`): every value, in order. */
export function collectOption(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}
