// Types for layering.js, the one copy of the layer policy (used by eslint.config.js and test/layering.test.ts).
export type Layer = 'root' | 'shell' | 'app' | 'middle' | 'core' | 'connectors' | 'base';
export const RANK: Record<Layer, number>;
export const AREAS: [prefix: string, layer: Layer][];
export const LAYERED_ROOTS: string[];
export function layerOf(file: string): Layer | undefined;
export function areaOf(file: string): string;
export function layerViolation(from: string, to: string): string | undefined;
declare const plugin: { rules: Record<string, unknown> };
export default plugin;
