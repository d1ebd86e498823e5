#include "ingest/csv.h"

#include <utility>

namespace chipkg {
namespace {

std::string_view TrimSpaces(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

class Parser {
 public:
  Parser(std::string_view text, const std::string& source, const CsvOptions& options)
      : text_(text), source_(source), options_(options) {}

  Result<CsvTable> Run() {
    // The BOM is skipped but offsets stay relative to the original bytes, so
    // spans still index the stored text.
    if (text_.substr(0, 3) == "\xEF\xBB\xBF") pos_ = line_start_ = 3;
    CsvTable table;
    size_t width = 0;
    bool first = true;
    while (pos_ < text_.size()) {
      if (options_.skip_blank_lines && IsLineBreak(text_[pos_])) {
        ConsumeLineBreak();
        continue;
      }
      CsvRecord record;
      record.line = line_;
      CHIPKG_RETURN_IF_ERROR(ReadRecord(record));
      if (first) {
        width = record.fields.size();
      } else if (options_.require_same_width && record.fields.size() != width) {
        return Error(record.line, "record has " + std::to_string(record.fields.size()) + " fields, expected " +
                                      std::to_string(width) + " (as in the record on line " +
                                      std::to_string(first_line_) + ")");
      }
      if (first) {
        first_line_ = record.line;
        first = false;
        if (options_.header) {
          table.header = std::move(record);
          continue;
        }
      }
      table.records.push_back(std::move(record));
    }
    return table;
  }

 private:
  static bool IsLineBreak(char c) { return c == '\n' || c == '\r'; }

  // Consumes LF, CRLF or a lone CR at pos_ as one line break.
  void ConsumeLineBreak() {
    if (text_[pos_] == '\r' && pos_ + 1 < text_.size() && text_[pos_ + 1] == '\n') ++pos_;
    ++pos_;
    ++line_;
    line_start_ = pos_;
  }

  Status Error(size_t line, const std::string& what) const {
    return Status::InvalidArgument(source_ + ":" + std::to_string(line) + ": " + what);
  }
  Status ErrorHere(const std::string& what) const {
    return Error(line_, what + " (column " + std::to_string(pos_ - line_start_ + 1) + ")");
  }

  Status ReadRecord(CsvRecord& record) {
    while (true) {
      CsvField field;
      if (pos_ < text_.size() && text_[pos_] == '"') {
        CHIPKG_RETURN_IF_ERROR(ReadQuoted(field));
      } else {
        CHIPKG_RETURN_IF_ERROR(ReadUnquoted(field));
      }
      record.fields.push_back(std::move(field));
      if (pos_ >= text_.size()) return Status::OK();
      if (text_[pos_] == options_.delimiter) {
        ++pos_;
        continue;
      }
      ConsumeLineBreak();  // ReadQuoted/ReadUnquoted stop only at a delimiter, a line break or the end
      return Status::OK();
    }
  }

  Status ReadUnquoted(CsvField& field) {
    size_t start = pos_;
    while (pos_ < text_.size() && text_[pos_] != options_.delimiter && !IsLineBreak(text_[pos_])) {
      if (text_[pos_] == '"') return ErrorHere("quote inside an unquoted field");
      ++pos_;
    }
    field.offset = start;
    field.length = pos_ - start;
    field.value.assign(text_.substr(start, field.length));
    return Status::OK();
  }

  Status ReadQuoted(CsvField& field) {
    size_t open_line = line_;
    size_t open_column = pos_ - line_start_ + 1;
    ++pos_;  // opening quote
    field.quoted = true;
    field.offset = pos_;
    while (true) {
      if (pos_ >= text_.size()) {
        return Error(open_line, "unterminated quoted field (opened at column " + std::to_string(open_column) +
                                    ", still open at end of input on line " + std::to_string(line_) + ")");
      }
      char c = text_[pos_];
      if (c == '"') {
        if (pos_ + 1 < text_.size() && text_[pos_ + 1] == '"') {
          field.value.push_back('"');
          pos_ += 2;
          continue;
        }
        field.length = pos_ - field.offset;
        ++pos_;  // closing quote
        break;
      }
      field.value.push_back(c);
      ++pos_;
      // Count lines inside the field so later records report their true line.
      if (c == '\n' || (c == '\r' && (pos_ >= text_.size() || text_[pos_] != '\n'))) {
        ++line_;
        line_start_ = pos_;
      }
    }
    if (pos_ < text_.size() && text_[pos_] != options_.delimiter && !IsLineBreak(text_[pos_])) {
      return ErrorHere("text after the closing quote of a quoted field");
    }
    return Status::OK();
  }

  std::string_view text_;
  const std::string& source_;
  const CsvOptions& options_;
  size_t pos_ = 0;
  size_t line_ = 1;
  size_t line_start_ = 0;
  size_t first_line_ = 1;
};

}  // namespace

int CsvTable::ColumnIndex(std::string_view name, size_t from) const {
  std::string_view wanted = TrimSpaces(name);
  for (size_t i = from; i < header.fields.size(); ++i) {
    if (TrimSpaces(header.fields[i].value) == wanted) return static_cast<int>(i);
  }
  return -1;
}

Result<CsvTable> ParseCsv(std::string_view text, const std::string& source, const CsvOptions& options) {
  if (options.delimiter == '"' || options.delimiter == '\n' || options.delimiter == '\r') {
    return Status::InvalidArgument(source + ": the CSV delimiter cannot be a quote or a line break");
  }
  return Parser(text, source, options).Run();
}

}  // namespace chipkg
