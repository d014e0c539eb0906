#pragma once

#include "hosts/sshprompter.h"

// The CLI's answers to SSH questions: fingerprints given with --accept-fingerprint, else, when stdin is a
// terminal, the person at it; a passphrase is read from the terminal without echo. Without a terminal the
// answer is no, which fails safe.
class CliSshPrompter : public SshPrompter
{
public:
    bool acceptUnknownHostKey(const QString &host, const QString &fingerprint) override;
    QString keyPassphrase(const QString &keyFile) override;
};
