#pragma once

#include "hosts/sshprompter.h"

#include <QPointer>
#include <QWidget>

// Asks the person at the workbench: an unknown host key is shown with its SHA256 fingerprint and accepted
// only on an explicit yes; a key passphrase is asked for and used once. The connection's worker thread waits
// while the question runs on the GUI thread.
class GuiSshPrompter : public SshPrompter
{
public:
    explicit GuiSshPrompter(QWidget *parent) : m_parent(parent) {}
    bool acceptUnknownHostKey(const QString &host, const QString &fingerprint) override;
    QString keyPassphrase(const QString &keyFile) override;

private:
    QPointer<QWidget> m_parent;
};
