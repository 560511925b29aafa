/** `floe advise` prices with the shared price sheets (src/app/cost/prices.ts, data in prices/*.yaml). */
export { DEFAULT_PRICE_SHEET, PRICE_SHEETS, loadPriceSheet, priceOf, type PriceSheet } from '../cost/prices.js';
