#pragma once

#include <QMutex>
#include <QString>
#include <QStringList>

// Questions an SSH connection must ask a person: accept an unknown host key (shown by its SHA256
// fingerprint), and a key's passphrase (used once, never stored). Called on the connection's worker thread;
// a GUI implementation hops to the GUI thread. The base class answers from a list given in advance, which is
// what the CLI's --accept-fingerprint and the tests use; with no list it refuses, the safe answer.
class SshPrompter
{
public:
    virtual ~SshPrompter() = default;
    virtual bool acceptUnknownHostKey(const QString &host, const QString &fingerprint);
    virtual QString keyPassphrase(const QString &keyFile);

    void setAcceptedFingerprints(const QStringList &fingerprints);
    QStringList acceptedFingerprints() const;
    void setPassphrase(const QString &passphrase);
    QStringList askedFingerprints() const;

private:
    mutable QMutex m_mutex;
    QStringList m_accepted;
    QStringList m_asked;
    QString m_passphrase;
};
