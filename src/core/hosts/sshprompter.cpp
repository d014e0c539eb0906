#include "hosts/sshprompter.h"

bool SshPrompter::acceptUnknownHostKey(const QString &, const QString &fingerprint)
{
    QMutexLocker lock(&m_mutex);
    m_asked.append(fingerprint);
    return m_accepted.contains(fingerprint);
}

QString SshPrompter::keyPassphrase(const QString &)
{
    QMutexLocker lock(&m_mutex);
    return m_passphrase;
}

void SshPrompter::setAcceptedFingerprints(const QStringList &fingerprints)
{
    QMutexLocker lock(&m_mutex);
    m_accepted = fingerprints;
}

QStringList SshPrompter::acceptedFingerprints() const
{
    QMutexLocker lock(&m_mutex);
    return m_accepted;
}

void SshPrompter::setPassphrase(const QString &passphrase)
{
    QMutexLocker lock(&m_mutex);
    m_passphrase = passphrase;
}

QStringList SshPrompter::askedFingerprints() const
{
    QMutexLocker lock(&m_mutex);
    return m_asked;
}
