/**
 * The answers of the proof-of-inclusion routes (routes/poi.ts, inx-poi's rest-api.yaml) beyond
 * the wire JSON of the codec. Types only, for the routes and the dashboard (web/).
 */

/** `POST /api/poi/v1/validate`. */
export interface PoiValidJson {
  valid: boolean;
}
