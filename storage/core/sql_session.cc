#include "storage/core/sql_session.h"

namespace adj::sql {

Param Param::bytes(std::string_view b) {
  Param p;
  p.kind_ = Kind::kBytes;
  p.text_ = std::string(b);
  return p;
}

Param Param::bytes(std::span<const std::uint8_t> b) {
  return bytes(std::string_view(reinterpret_cast<const char*>(b.data()), b.size()));
}

Param Param::ref(std::string_view v) {
  Param p;
  p.kind_ = Kind::kText;
  p.ref_ = v;
  return p;
}

Result<ReadTx> ReadTx::begin(Session& s) {
  if (s.in_transaction()) return ReadTx(nullptr);
  ADJ_RETURN_IF_ERROR(s.begin_read());
  return ReadTx(&s);
}

Result<WriteTx> WriteTx::begin(Session& s) {
  ADJ_RETURN_IF_ERROR(s.begin_write());
  return WriteTx(&s);
}

Status WriteTx::commit() {
  if (!s_) return Status::Internal("commit of a finished transaction");
  ADJ_RETURN_IF_ERROR(s_->commit());
  (void)s_.release();  // committed: nothing to roll back
  return Status::Ok();
}

Status WriteTx::rollback() {
  Session* s = s_.release();
  return s ? s->rollback() : Status::Ok();
}

}  // namespace adj::sql
