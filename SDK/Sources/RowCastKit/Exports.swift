// A plugin imports RowCastKit alone: the JSON types its controllers read and write
// (`JSONValue`, `JSONObject`, the parser and the writer) come with it.
@_exported import RowCastJSON
