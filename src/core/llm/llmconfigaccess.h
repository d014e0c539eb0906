#pragma once

#include <QStringList>

// llm.json names endpoints, models and where keys are kept; it is nobody else's business on a shared
// machine. So the file is kept 0600 and AccelOpt's own folder for it 0700: set so when written, and an
// existing file or folder found wider is tightened when it is read, with a note saying what changed.
// Only AccelOpt's own folder (one named "AccelOpt", as the default ~/.config/AccelOpt is, or one save()
// created) is tightened: a file named with --config or $ACCELOPT_LLM_CONFIG may sit in a project folder or
// /tmp, whose mode is not ours to change; the file's own 0600 is what keeps it private there. Nothing owned
// by another user is changed. POSIX only: on other systems these do nothing.
class LlmConfigAccess
{
public:
    // Notes for the user, one per change made or that could not be made; empty when all was private already.
    static QStringList tighten(const QString &path, bool folderCreated = false);
};
