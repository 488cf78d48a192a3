// The outbox Maildir holds reports and sign-in links: the directories MaildirSender creates are
// the owner's only (0700) and so is every message file (0600); a Maildir that already exists (an
// MTA's) keeps the modes its owner gave it.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>

#include "server/mail/outbox_worker.h"
#include "tests/support/temp_dir.h"

namespace adj::mail {
namespace {

int mode_of(const std::filesystem::path& p) {
  struct stat st {};
  if (::stat(p.c_str(), &st) != 0) return -1;
  return static_cast<int>(st.st_mode & 0777);
}

OutboxMessage modes_message(std::int64_t id) {
  OutboxMessage m;
  m.id = id;
  m.kind = "report";
  m.to = "wessex@example.org";
  m.raw = "From: orders@pbm.example.net\r\nTo: wessex@example.org\r\nSubject: r\r\n\r\nsecret\r\n";
  m.dedupe_key = "modes-" + std::to_string(id);
  m.created_at = 1'700'000'000;
  return m;
}

TEST(MaildirModes, CreatedDirectoriesAndFilesAreTheOwnersOnly) {
  ::adj::testing::TempDir dir;
  const auto box = dir.path() / "spool" / "outbox";
  MaildirSender sender(box.string());
  ASSERT_TRUE(sender.send(modes_message(1)).ok);
  for (const auto& d : {box, box / "tmp", box / "new", box / "cur"}) EXPECT_EQ(mode_of(d), 0700);
  const auto file = box / "new" / sender.file_name(modes_message(1));
  EXPECT_EQ(mode_of(file), 0600);
}

TEST(MaildirModes, AnExistingMaildirKeepsItsModes) {
  ::adj::testing::TempDir dir;
  const auto box = dir.path() / "shared";
  for (const char* sub : {"tmp", "new", "cur"}) std::filesystem::create_directories(box / sub);
  for (const auto& d : {box, box / "tmp", box / "new", box / "cur"})
    ASSERT_EQ(::chmod(d.c_str(), 0750), 0);
  MaildirSender sender(box.string());
  ASSERT_TRUE(sender.send(modes_message(2)).ok);
  EXPECT_EQ(mode_of(box / "new"), 0750);
  EXPECT_EQ(mode_of(box / "new" / sender.file_name(modes_message(2))), 0600);
}

}  // namespace
}  // namespace adj::mail
