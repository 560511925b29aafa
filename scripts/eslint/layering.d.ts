// Types for layering.js, the one copy of the layer policy (used by eslint.config.js and test/layering.test.ts).
export type Layer = 'shell' | 'app' | 'middle' | 'bottom' | 'connectors' | 'root';
export const RANK: Record<Layer, number>;
export const AREAS: [prefix: string, layer: Layer][];
export function layerOf(file: string): Layer | undefined;
export function layerViolation(from: string, to: string): string | undefined;
declare const plugin: { rules: Record<string, unknown> };
export default plugin;
