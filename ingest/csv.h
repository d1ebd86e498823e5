// An RFC 4180 CSV reader that remembers where every field came from.
//
// Structured datasets are stored as document versions whose text is the CSV
// file itself, so a claim read from a cell can carry the cell's exact byte span
// (and its excerpt) like any claim read from a page. The reader therefore keeps,
// for each field, the byte offset and length of its content in the original
// text, and for each record the line it starts on.
//
// Accepted: quoted fields with embedded delimiters, doubled quotes, CR, LF and
// CRLF inside quotes; records ended by LF, CRLF or a lone CR; a UTF-8 byte order
// mark; a last record with or without a trailing newline; tabs and any other
// bytes inside fields. Refused with InvalidArgument naming "source:line": an
// unterminated quoted field, a quote inside an unquoted field, text after a
// closing quote, and (by default) a record whose field count differs from the
// header's.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "engine/status.h"

namespace chipkg {

struct CsvField {
  std::string value;   // unescaped content: doubled quotes collapsed, surrounding quotes removed
  size_t offset = 0;   // byte offset of the content in the original text (inside the quotes when quoted)
  size_t length = 0;   // bytes of raw content; text.substr(offset, length) == value unless it had ""
  bool quoted = false;
};

struct CsvRecord {
  size_t line = 0;  // 1-based physical line the record starts on
  std::vector<CsvField> fields;
};

struct CsvTable {
  CsvRecord header;               // the first record (empty when CsvOptions::header is false)
  std::vector<CsvRecord> records; // data records, in file order
  // Index of the first header field at or after `from` equal to `name`
  // (exact, after trimming spaces), or -1.
  int ColumnIndex(std::string_view name, size_t from = 0) const;
};

struct CsvOptions {
  char delimiter = ',';
  bool header = true;              // first record names the columns
  bool require_same_width = true;  // every record must have as many fields as the first one
  bool skip_blank_lines = true;    // a line with no bytes at all is not a record
};

// Parses `text`. `source` names the input in error messages ("ml_hardware.csv").
Result<CsvTable> ParseCsv(std::string_view text, const std::string& source, const CsvOptions& options = {});

}  // namespace chipkg
