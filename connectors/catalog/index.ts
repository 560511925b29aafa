export {
  openCatalog,
  parseTableIdentifier,
  identifierToString,
  type IcebergCatalog,
  type LoadedTable,
  type TableIdentifier,
  type CatalogOptions,
} from './catalog.js';
