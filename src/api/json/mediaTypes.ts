/**
 * The media types of the API's binary answers and bodies, shared with the dashboard (web/),
 * which imports this module as it is: it imports nothing.
 */

/** The binary form of blocks, outputs and milestones (raw TIP wire bytes); iota.js sends and asks for this one. */
export const MIME_SERIALIZER = "application/vnd.iota.serializer-v1";
/** The interface document's name for the same thing, accepted as an alias. */
export const MIME_SERIALIZER_ALIAS = "application/vnd.node.serializer-v1";
