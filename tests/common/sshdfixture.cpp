#include "sshdfixture.h"

#include "processtree.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QTcpServer>
#include <QTcpSocket>
#include <QThread>

#include <csignal>
#include <pwd.h>
#include <sys/types.h>
#include <unistd.h>

// sshd_config cannot quote paths with spaces, and a test's app name (the default template) may have some.
SshdFixture::SshdFixture() : m_dir(QDir::tempPath() + QStringLiteral("/accelopt-sshd-XXXXXX"))
{
    // sshd refuses keys and configs in folders others can write to.
    QFile::setPermissions(m_dir.path(),
                          QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner);
}

SshdFixture::~SshdFixture()
{
    stop();
}

QString SshdFixture::userName()
{
    const passwd *pw = ::getpwuid(::geteuid());
    return pw ? QString::fromLocal8Bit(pw->pw_name) : QString();
}

bool SshdFixture::run(const QString &program, const QStringList &args, QString &error)
{
    QProcess p;
    p.start(program, args);
    if (!p.waitForFinished(30000) || p.exitStatus() != QProcess::NormalExit || p.exitCode() != 0) {
        error = QStringLiteral("%1 %2 failed: %3")
                    .arg(program, args.join(u' '), QString::fromLocal8Bit(p.readAllStandardError()));
        return false;
    }
    return true;
}

bool SshdFixture::regenerateHostKey(QString &error)
{
    QFile::remove(path(QStringLiteral("host_key")));
    QFile::remove(path(QStringLiteral("host_key.pub")));
    return run(QStringLiteral("ssh-keygen"),
               {QStringLiteral("-q"), QStringLiteral("-t"), QStringLiteral("ed25519"), QStringLiteral("-N"),
                QString(), QStringLiteral("-f"), path(QStringLiteral("host_key"))},
               error);
}

QString SshdFixture::hostKeyFingerprint() const
{
    QProcess p;
    p.start(QStringLiteral("ssh-keygen"),
            {QStringLiteral("-l"), QStringLiteral("-E"), QStringLiteral("sha256"), QStringLiteral("-f"),
             path(QStringLiteral("host_key.pub"))});
    p.waitForFinished(10000);
    return QString::fromLatin1(p.readAllStandardOutput()).section(u' ', 1, 1);
}

bool SshdFixture::start(QString &error)
{
    if (::geteuid() != 0) {
        error = QStringLiteral("sshd on a test port needs root here (privilege separation)");
        return false;
    }
    if (!QFile::exists(QStringLiteral("/usr/sbin/sshd"))) {
        error =
            QStringLiteral("/usr/sbin/sshd is missing: install openssh-server (packaging/install-deps.sh)");
        return false;
    }
    QDir().mkpath(QStringLiteral("/run/sshd")); // sshd's privilege-separation folder
    if (!QFile::exists(path(QStringLiteral("host_key"))) && !regenerateHostKey(error))
        return false;
    if (!QFile::exists(clientKey())) {
        if (!run(QStringLiteral("ssh-keygen"),
                 {QStringLiteral("-q"), QStringLiteral("-t"), QStringLiteral("ed25519"), QStringLiteral("-N"),
                  QString(), QStringLiteral("-f"), clientKey()},
                 error))
            return false;
        QFile::copy(clientKey() + QStringLiteral(".pub"), path(QStringLiteral("authorized_keys")));
    }
    if (m_port == 0) {
        QTcpServer probe;
        probe.listen(QHostAddress::LocalHost, 0);
        m_port = probe.serverPort();
    }
    QFile config(path(QStringLiteral("sshd_config")));
    if (!config.open(QIODevice::WriteOnly | QIODevice::Truncate)) {
        error = QStringLiteral("cannot write sshd_config");
        return false;
    }
    config.write(QStringLiteral("Port %1\n"
                                "ListenAddress 127.0.0.1\n"
                                "HostKey %2\n"
                                "AuthorizedKeysFile %3\n"
                                "PidFile %4\n"
                                "StrictModes no\n"
                                "PermitRootLogin prohibit-password\n"
                                "PasswordAuthentication no\n"
                                "KbdInteractiveAuthentication no\n"
                                "UsePAM no\n"
                                "Subsystem sftp internal-sftp\n"
                                "LogLevel ERROR\n")
                     .arg(m_port)
                     .arg(path(QStringLiteral("host_key")), path(QStringLiteral("authorized_keys")),
                          path(QStringLiteral("sshd.pid")))
                     .toUtf8());
    config.close();
    m_process.setProcessChannelMode(QProcess::ForwardedErrorChannel);
    m_process.start(QStringLiteral("/usr/sbin/sshd"),
                    {QStringLiteral("-D"), QStringLiteral("-e"), QStringLiteral("-f"), config.fileName()});
    if (!m_process.waitForStarted(10000)) {
        error = QStringLiteral("sshd did not start: %1").arg(m_process.errorString());
        return false;
    }
    m_pid = m_process.processId();
    if (!waitForPort(10000)) {
        error = QStringLiteral("sshd did not listen on port %1").arg(m_port);
        stop();
        return false;
    }
    return true;
}

bool SshdFixture::waitForPort(int timeoutMs) const
{
    QElapsedTimer clock;
    clock.start();
    while (clock.elapsed() < timeoutMs) {
        QTcpSocket socket;
        socket.connectToHost(QHostAddress::LocalHost, m_port);
        if (socket.waitForConnected(200))
            return true;
        QThread::msleep(50);
    }
    return false;
}

void SshdFixture::stop()
{
    if (m_pid > 0) {
        // sshd gives each connection its own session, so a process-group kill would leave the connections
        // (and the runners under them) alive, and the client would never notice the "crash".
        const QList<pid_t> below = ProcessTree::descendants(pid_t(m_pid));
        ::kill(pid_t(m_pid), SIGKILL);
        for (pid_t pid : below)
            ::kill(pid, SIGKILL);
        m_process.waitForFinished(5000);
        m_pid = 0;
    }
}

bool SshdFixture::restart(QString &error)
{
    stop();
    return start(error);
}

bool SshdFixture::running() const
{
    return m_pid > 0 && m_process.state() == QProcess::Running;
}
