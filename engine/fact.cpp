#include "engine/fact.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <utility>

namespace chipkg {

namespace {

// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's
// algorithm). 64-bit inside so that no year in int32 range overflows.
int64_t DaysFromCivil(int64_t y, int64_t m, int64_t d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const int64_t yoe = y - era * 400;
  const int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

bool IsLeap(int64_t y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

int DaysInMonth(int64_t y, int m) {
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (m == 2 && IsLeap(y)) return 29;
  return kDays[m - 1];
}

int64_t ClampToInt32(int64_t v) {
  if (v > INT32_MAX) return INT32_MAX;
  if (v < INT32_MIN) return INT32_MIN;
  return v;
}

// Reads exactly `n` ASCII digits at s[pos].
bool ReadDigits(const std::string& s, size_t pos, size_t n, int* out) {
  if (pos + n > s.size()) return false;
  int v = 0;
  for (size_t i = pos; i < pos + n; ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
    v = v * 10 + (s[i] - '0');
  }
  *out = v;
  return true;
}

}  // namespace

std::optional<Date> Date::Parse(const std::string& iso) {
  int year = 0, month = 0, day = 0;
  if (!ReadDigits(iso, 0, 4, &year)) return std::nullopt;
  Date date;
  date.year = year;
  if (iso.size() == 4) {
    date.precision = DatePrecision::kYear;
    return date;
  }
  if (iso.size() < 7 || iso[4] != '-' || !ReadDigits(iso, 5, 2, &month) || month < 1 || month > 12) {
    return std::nullopt;
  }
  date.month = static_cast<uint8_t>(month);
  if (iso.size() == 7) {
    date.precision = DatePrecision::kMonth;
    return date;
  }
  if (iso.size() != 10 || iso[7] != '-' || !ReadDigits(iso, 8, 2, &day) || day < 1 ||
      day > DaysInMonth(year, month)) {
    return std::nullopt;
  }
  date.day = static_cast<uint8_t>(day);
  date.precision = DatePrecision::kDay;
  return date;
}

Date Date::FromDays(int32_t days_since_epoch) {
  int64_t z = int64_t{days_since_epoch} + 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const int64_t doe = z - era * 146097;
  const int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const int64_t mp = (5 * doy + 2) / 153;
  const int64_t d = doy - (153 * mp + 2) / 5 + 1;
  const int64_t m = mp < 10 ? mp + 3 : mp - 9;
  const int64_t y = yoe + era * 400 + (m <= 2);
  Date date;
  date.year = static_cast<int32_t>(y);
  date.month = static_cast<uint8_t>(m);
  date.day = static_cast<uint8_t>(d);
  date.precision = DatePrecision::kDay;
  return date;
}

// A month or day outside its range (a Date built by hand rather than parsed)
// is clamped, so the covered interval is always well defined.
int32_t Date::FirstDay() const {
  int m = precision == DatePrecision::kYear ? 1 : (month < 1 ? 1 : month > 12 ? 12 : month);
  int d = 1;
  if (precision == DatePrecision::kDay) {
    d = day < 1 ? 1 : day;
    int dim = DaysInMonth(year, m);
    if (d > dim) d = dim;
  }
  return static_cast<int32_t>(ClampToInt32(DaysFromCivil(year, m, d)));
}

int32_t Date::LastDay() const {
  if (precision == DatePrecision::kDay) return FirstDay();
  int m = precision == DatePrecision::kYear ? 12 : (month < 1 ? 1 : month > 12 ? 12 : month);
  return static_cast<int32_t>(ClampToInt32(DaysFromCivil(year, m, DaysInMonth(year, m))));
}

bool Date::IsValid() const {
  if (year < 0 || year > 9999) return false;
  switch (precision) {
    case DatePrecision::kYear: return month == 0 && day == 0;
    case DatePrecision::kMonth: return month >= 1 && month <= 12 && day == 0;
    case DatePrecision::kDay: return month >= 1 && month <= 12 && day >= 1 && day <= DaysInMonth(year, month);
  }
  return false;
}

std::string Date::ToString() const {
  char buf[40];
  const char* sign = year < 0 ? "-" : "";
  long long abs_year = year < 0 ? -static_cast<long long>(year) : year;
  switch (precision) {
    case DatePrecision::kYear:
      std::snprintf(buf, sizeof buf, "%s%04lld", sign, abs_year);
      break;
    case DatePrecision::kMonth:
      std::snprintf(buf, sizeof buf, "%s%04lld-%02u", sign, abs_year, unsigned{month});
      break;
    case DatePrecision::kDay:
    default:
      std::snprintf(buf, sizeof buf, "%s%04lld-%02u-%02u", sign, abs_year, unsigned{month}, unsigned{day});
      break;
  }
  return buf;
}

const char* ValueKindName(ValueKind kind) {
  switch (kind) {
    case ValueKind::kQuantity: return "quantity";
    case ValueKind::kDate: return "date";
    case ValueKind::kEntity: return "entity";
    case ValueKind::kText: return "text";
    case ValueKind::kBool: return "bool";
    case ValueKind::kNotPublished: return "not_published";
  }
  return "unknown";
}

Value Value::Quantity(double canonical, std::string dimension, std::string original) {
  Value v;
  v.kind = ValueKind::kQuantity;
  v.number = canonical;
  v.dimension = std::move(dimension);
  v.original = std::move(original);
  return v;
}

Value Value::OfDate(Date date, std::string original) {
  Value v;
  v.kind = ValueKind::kDate;
  v.date = date;
  v.original = std::move(original);
  return v;
}

Value Value::Entity(EntityId id, std::string original) {
  Value v;
  v.kind = ValueKind::kEntity;
  v.text = std::move(id);
  v.original = std::move(original);
  return v;
}

Value Value::Text(std::string text) {
  Value v;
  v.kind = ValueKind::kText;
  v.text = std::move(text);
  return v;
}

Value Value::Bool(bool b, std::string original) {
  Value v;
  v.kind = ValueKind::kBool;
  v.number = b ? 1 : 0;
  v.original = std::move(original);
  return v;
}

Value Value::NotPublished(std::string original) {
  Value v;
  v.kind = ValueKind::kNotPublished;
  v.original = std::move(original);
  return v;
}

bool Value::SameContent(const Value& other) const {
  if (kind != other.kind) return false;
  switch (kind) {
    case ValueKind::kQuantity: return number == other.number;  // -0.0 == 0.0; NaN equals nothing
    case ValueKind::kDate: return date == other.date;
    case ValueKind::kEntity:
    case ValueKind::kText: return text == other.text;
    case ValueKind::kBool: return (number != 0) == (other.number != 0);
    case ValueKind::kNotPublished: return true;
  }
  return false;
}

std::string Value::ToString() const {
  if (!original.empty()) return original;
  switch (kind) {
    case ValueKind::kQuantity: {
      // Shortest text that reads back as the same number.
      char buf[64];
      auto res = std::to_chars(buf, buf + sizeof buf, number);
      std::string out(buf, res.ptr);
      if (!dimension.empty()) out += " " + dimension;
      return out;
    }
    case ValueKind::kDate: return date.ToString();
    case ValueKind::kEntity:
    case ValueKind::kText: return text;
    case ValueKind::kBool: return number != 0 ? "true" : "false";
    case ValueKind::kNotPublished: return "not published";
  }
  return "";
}

}  // namespace chipkg
