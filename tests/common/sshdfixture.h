#pragma once

#include <QProcess>
#include <QString>
#include <QTemporaryDir>

// A real OpenSSH server for tests: its own host key, client key, authorized_keys and config in a temporary
// folder, listening on 127.0.0.1 on a free port, started and stopped by PID. Root only can start sshd this
// way (privilege separation), which is how CI runs; otherwise start() says why and tests skip.
class SshdFixture
{
public:
    SshdFixture();
    ~SshdFixture();

    bool start(QString &error);
    void stop(); // the listener and every session it spawned
    bool restart(QString &error);
    bool regenerateHostKey(QString &error);
    bool running() const;

    quint16 port() const { return m_port; }
    qint64 pid() const { return m_pid; } // the listener; each session is a child of it
    QString clientKey() const { return m_dir.filePath(QStringLiteral("client_key")); }
    QString knownHosts() const { return m_dir.filePath(QStringLiteral("known_hosts")); }
    QString hostKeyFingerprint() const; // SHA256:..., as ssh-keygen -l prints it
    QString path(const QString &name) const { return m_dir.filePath(name); }
    static QString userName();

private:
    static bool run(const QString &program, const QStringList &args, QString &error);
    bool waitForPort(int timeoutMs) const;

    QTemporaryDir m_dir;
    quint16 m_port = 0;
    qint64 m_pid = 0;
    QProcess m_process;
};
