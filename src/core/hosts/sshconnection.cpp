#include "hosts/sshconnection.h"

#include "common/logcategories.h"
#include "hosts/runnerbundle.h"
#include "hosts/sshprompter.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QRandomGenerator>
#include <QRegularExpression>
#include <QSet>
#include <QSocketNotifier>
#include <QTimer>

#include <fcntl.h>

namespace {
constexpr int keepaliveMs = 15000;
constexpr int pollMs = 25; // safety net: libssh may hold decoded data the socket no longer signals

QString shellQuote(const QString &s)
{
    QString quoted = s;
    quoted.replace(u'\'', QStringLiteral("'\\''"));
    return u'\'' + quoted + u'\'';
}

QString sshError(ssh_session session)
{
    return QString::fromUtf8(ssh_get_error(session));
}

constexpr qsizetype stderrTailChars = 4000;

// The last few non-empty lines of a runner's stderr, one line of text: a traceback's last line says why.
QString lastLines(const QString &tail)
{
    QStringList lines;
    for (const QString &line : tail.split(u'\n', Qt::SkipEmptyParts))
        if (!line.trimmed().isEmpty())
            lines.append(line.trimmed());
    return lines.mid(qMax<qsizetype>(0, lines.size() - 3)).join(QStringLiteral(" | ")).right(600);
}

QString settingOrEnv(const QString &value, const char *env)
{
    return value.isEmpty() ? qEnvironmentVariable(env) : value;
}
} // namespace

SshConnection::SshConnection(const HostConfig &config, const QString &nkibenchDir, SshPrompter *prompter)
    : m_config(config), m_nkibenchDir(nkibenchDir), m_prompter(prompter)
{
}

SshConnection::~SshConnection()
{
    m_channels.clear();
    m_session.reset();
}

QString SshConnection::endpoint() const
{
    QString user = m_config.user;
    return (user.isEmpty() ? QString() : user + u'@') + m_config.sshHost +
           (m_config.port > 0 ? QStringLiteral(":%1").arg(m_config.port) : QString());
}

void SshConnection::connectAndDeploy()
{
    if (!m_poll) {
        m_poll = new QTimer(this);
        m_poll->setInterval(pollMs);
        connect(m_poll, &QTimer::timeout, this, &SshConnection::pump);
        m_keepalive = new QTimer(this);
        m_keepalive->setInterval(keepaliveMs);
        connect(m_keepalive, &QTimer::timeout, this, [this] {
            if (m_session && ssh_send_ignore(m_session.get(), "keepalive") != SSH_OK)
                dropConnection(QStringLiteral("keepalive failed: %1").arg(sshError(m_session.get())));
        });
    }
    if (m_session && ssh_is_connected(m_session.get())) {
        Q_EMIT connected(QString(), m_remoteDir, 0);
        return;
    }
    shutdown(); // channels of a half-dead session must go before the session they belong to
    QString error, fingerprint;
    int uploaded = 0;
    if (!connectSession(error, fingerprint)) {
        m_session.reset();
        Q_EMIT connectFailed(error, true);
        return;
    }
    if (!verifyHostKey(error, fingerprint) || !authenticate(error) || !deploy(error, uploaded)) {
        // A connection that broke on the way (reset, closed by the peer) is the network's doing and is tried
        // again like a refused one; a refused key or a failed deploy on a live connection is not.
        const bool lost = !ssh_is_connected(m_session.get()) ||
                          (ssh_get_status(m_session.get()) & (SSH_CLOSED | SSH_CLOSED_ERROR)) != 0;
        m_session.reset();
        Q_EMIT connectFailed(error, lost);
        return;
    }
    delete m_notifier;
    m_notifier = new QSocketNotifier(ssh_get_fd(m_session.get()), QSocketNotifier::Read, this);
    connect(m_notifier, &QSocketNotifier::activated, this, &SshConnection::pump);
    m_poll->start();
    m_keepalive->start();
    Q_EMIT connected(fingerprint, m_remoteDir, uploaded);
}

bool SshConnection::connectSession(QString &error, QString &fingerprint)
{
    Q_UNUSED(fingerprint)
    m_session.reset(ssh_new());
    ssh_session s = m_session.get();
    if (!s) {
        error = QStringLiteral("libssh could not create a session");
        return false;
    }
    const QByteArray host = m_config.sshHost.toUtf8();
    ssh_options_set(s, SSH_OPTIONS_HOST, host.constData());
    // libssh finds ~/.ssh through the password database, not $HOME; every other file of ours follows $HOME,
    // so a key accepted under HOME=/elsewhere went to the real home and was not found where it was looked
    // for.
    const QByteArray sshDir = QDir::home().filePath(QStringLiteral(".ssh")).toUtf8();
    ssh_options_set(s, SSH_OPTIONS_SSH_DIR, sshDir.constData());
    const QByteArray homeKnownHosts = QDir::home().filePath(QStringLiteral(".ssh/known_hosts")).toUtf8();
    ssh_options_set(s, SSH_OPTIONS_KNOWNHOSTS, homeKnownHosts.constData());
    const QString configFile = settingOrEnv(m_config.sshConfigFile, "ACCELOPT_SSH_CONFIG");
    // ~/.ssh/config supplies HostName, User, Port, IdentityFile and ProxyJump for an alias.
    if (configFile.isEmpty())
        ssh_options_parse_config(s, nullptr);
    else if (QFileInfo::exists(configFile))
        ssh_options_parse_config(s, configFile.toUtf8().constData());
    if (!m_config.user.isEmpty())
        ssh_options_set(s, SSH_OPTIONS_USER, m_config.user.toUtf8().constData());
    if (m_config.port > 0) {
        const unsigned int port = unsigned(m_config.port);
        ssh_options_set(s, SSH_OPTIONS_PORT, &port);
    }
    const QString knownHosts = settingOrEnv(m_config.knownHostsFile, "ACCELOPT_KNOWN_HOSTS");
    if (!knownHosts.isEmpty())
        ssh_options_set(s, SSH_OPTIONS_KNOWNHOSTS, knownHosts.toUtf8().constData());
    m_knownHostsPath = QString::fromUtf8(homeKnownHosts);
    char *effective = nullptr; // a UserKnownHostsFile in the ssh config may have moved it
    if (ssh_options_get(s, SSH_OPTIONS_KNOWNHOSTS, &effective) == SSH_OK && effective) {
        m_knownHostsPath = QString::fromUtf8(effective);
        ssh_string_free_char(effective);
    }
    const long timeoutSeconds = 10;
    ssh_options_set(s, SSH_OPTIONS_TIMEOUT, &timeoutSeconds);
    // Requests and results are single short lines: Nagle's algorithm would hold each one back for an ACK.
    const int noDelay = 1;
    ssh_options_set(s, SSH_OPTIONS_NODELAY, &noDelay);
    if (ssh_connect(s) != SSH_OK) {
        error = QStringLiteral(
                    "cannot connect to %1: %2. Check the host name and port, and that sshd runs there.")
                    .arg(endpoint(), sshError(s));
        return false;
    }
    return true;
}

bool SshConnection::verifyHostKey(QString &error, QString &fingerprint)
{
    ssh_session s = m_session.get();
    ssh_key rawKey = nullptr;
    if (ssh_get_server_publickey(s, &rawKey) != SSH_OK) {
        error = QStringLiteral("%1 sent no host key: %2").arg(endpoint(), sshError(s));
        return false;
    }
    SshKeyPtr key(rawKey);
    unsigned char *rawHash = nullptr;
    size_t hashLength = 0;
    if (ssh_get_publickey_hash(key.get(), SSH_PUBLICKEY_HASH_SHA256, &rawHash, &hashLength) != 0) {
        error = QStringLiteral("cannot hash the host key of %1").arg(endpoint());
        return false;
    }
    SshHashPtr hash(rawHash);
    SshCharPtr text(ssh_get_fingerprint_hash(SSH_PUBLICKEY_HASH_SHA256, hash.get(), hashLength));
    fingerprint = QString::fromLatin1(text.get());

    switch (ssh_session_is_known_server(s)) {
    case SSH_KNOWN_HOSTS_OK:
        return true;
    case SSH_KNOWN_HOSTS_CHANGED:
    case SSH_KNOWN_HOSTS_OTHER:
        error = QStringLiteral(
                    "REFUSED: the host key of %1 has CHANGED (now %2). Someone may be intercepting the "
                    "connection, or the host was reinstalled. If you are sure it is legitimate, remove "
                    "the host's old entry from %3 (ssh-keygen -R HOST -f %3) and connect again.")
                    .arg(endpoint(), fingerprint, m_knownHostsPath);
        return false;
    case SSH_KNOWN_HOSTS_UNKNOWN:
    case SSH_KNOWN_HOSTS_NOT_FOUND: {
        if (!m_prompter || !m_prompter->acceptUnknownHostKey(endpoint(), fingerprint)) {
            const QStringList given = m_prompter ? m_prompter->acceptedFingerprints() : QStringList();
            if (!given.isEmpty())
                error = QStringLiteral("the host key of %1 has fingerprint %2, which does not match the one "
                                       "given (%3). Check the fingerprint on the host (ssh-keygen -lf "
                                       "/etc/ssh/ssh_host_ed25519_key.pub) before you accept it.")
                            .arg(endpoint(), fingerprint, given.join(QStringLiteral(", ")));
            else
                error = QStringLiteral("the host key of %1 is not known (fingerprint %2; not in %3). "
                                       "Confirm it to connect (accelopt: --accept-fingerprint %2).")
                            .arg(endpoint(), fingerprint, m_knownHostsPath);
            return false;
        }
        QDir().mkpath(QFileInfo(m_knownHostsPath).absolutePath());
        if (ssh_session_update_known_hosts(s) != SSH_OK) {
            error = QStringLiteral("accepted %1 but could not record it in %2: %3")
                        .arg(fingerprint, m_knownHostsPath, sshError(s));
            return false;
        }
        qCInfo(lcHosts).noquote() << "added" << endpoint() << fingerprint << "to" << m_knownHostsPath;
        return true;
    }
    case SSH_KNOWN_HOSTS_ERROR:
        break;
    }
    error = QStringLiteral("cannot check the host key of %1: %2").arg(endpoint(), sshError(s));
    return false;
}

bool SshConnection::authenticate(QString &error)
{
    ssh_session s = m_session.get();
    QStringList tried;
    if (!m_config.identityFile.isEmpty()) {
        const QString path = QDir::fromNativeSeparators(m_config.identityFile)
                                 .replace(QRegularExpression(QStringLiteral("^~")), QDir::homePath());
        tried << path;
        ssh_key rawKey = nullptr;
        int rc = ssh_pki_import_privkey_file(path.toUtf8().constData(), nullptr, nullptr, nullptr, &rawKey);
        if (rc != SSH_OK && QFileInfo::exists(path) && m_prompter) {
            // Probably encrypted: ask once; the passphrase lives only for this call.
            const QString passphrase = m_prompter->keyPassphrase(path);
            if (!passphrase.isEmpty())
                rc = ssh_pki_import_privkey_file(path.toUtf8().constData(), passphrase.toUtf8().constData(),
                                                 nullptr, nullptr, &rawKey);
        }
        if (rc != SSH_OK) {
            error = QStringLiteral(
                        "cannot load the key file %1: it is missing, unreadable, not a private key, or its "
                        "passphrase was wrong")
                        .arg(path);
            return false;
        }
        SshKeyPtr key(rawKey);
        if (ssh_userauth_publickey(s, nullptr, key.get()) == SSH_AUTH_SUCCESS)
            return true;
    }
    if (!qEnvironmentVariableIsEmpty("SSH_AUTH_SOCK")) {
        tried << QStringLiteral("ssh-agent");
        if (ssh_userauth_agent(s, nullptr) == SSH_AUTH_SUCCESS)
            return true;
    }
    if (m_config.identityFile.isEmpty()) {
        tried << QStringLiteral("default keys and IdentityFile from ssh config");
        if (ssh_userauth_publickey_auto(s, nullptr, nullptr) == SSH_AUTH_SUCCESS)
            return true;
    }
    char *user = nullptr;
    ssh_options_get(s, SSH_OPTIONS_USER, &user);
    const QString who = QString::fromUtf8(user ? user : "?");
    ssh_string_free_char(user);
    error = QStringLiteral(
                "authentication as '%1' on %2 failed (tried %3). Check the user name and that the public "
                "key is in the server's authorized_keys.")
                .arg(who, endpoint(), tried.join(QStringLiteral(", ")));
    return false;
}

bool SshConnection::deploy(QString &error, int &uploaded)
{
    RunnerBundle bundle(m_nkibenchDir);
    if (!bundle.scan(error))
        return false;
    const QString root =
        m_config.deployRoot.isEmpty() ? QStringLiteral(".cache/accelopt/runners") : m_config.deployRoot;
    m_remoteDir = root + u'/' + bundle.hash();
    SftpSessionPtr sftp(sftp_new(m_session.get()));
    if (!sftp || sftp_init(sftp.get()) != SSH_OK) {
        error = QStringLiteral("SFTP is not available on %1: %2").arg(endpoint(), sshError(m_session.get()));
        return false;
    }
    if (SftpAttributesPtr done(
            sftp_stat(sftp.get(), (m_remoteDir + QStringLiteral("/.complete")).toUtf8().constData()));
        done) {
        qCInfo(lcHosts).noquote() << "runner" << bundle.hash() << "already on" << endpoint();
        return true;
    }
    // Upload beside the final folder and rename at the end: a dropped upload never looks complete.
    const QString partial =
        m_remoteDir +
        QStringLiteral(".partial-%1").arg(QRandomGenerator::global()->generate(), 8, 16, QLatin1Char('0'));
    QString prefix;
    for (const QString &part : root.split(u'/', Qt::SkipEmptyParts)) {
        prefix += (prefix.isEmpty() && !root.startsWith(u'/') ? QString() : QStringLiteral("/")) + part;
        sftp_mkdir(sftp.get(), prefix.toUtf8().constData(), 0755); // already there is fine
    }
    QSet<QString> made;
    auto makeDir = [&](const QString &dir) {
        if (made.contains(dir))
            return;
        made.insert(dir);
        sftp_mkdir(sftp.get(), dir.toUtf8().constData(), 0755);
    };
    makeDir(partial);
    for (const RunnerBundle::File &file : bundle.files()) {
        const QStringList parts = file.relativePath.split(u'/');
        QString dir = partial;
        for (int i = 0; i + 1 < parts.size(); ++i) {
            dir += u'/' + parts.at(i);
            makeDir(dir);
        }
        if (!uploadFile(sftp.get(), file.absolutePath, partial + u'/' + file.relativePath, error))
            return false;
        ++uploaded;
    }
    {
        SftpFilePtr marker(sftp_open(sftp.get(),
                                     (partial + QStringLiteral("/.complete")).toUtf8().constData(),
                                     O_WRONLY | O_CREAT | O_TRUNC, 0644));
        if (!marker) {
            error = QStringLiteral("cannot write to %1 on %2: %3")
                        .arg(partial, endpoint(), sshError(m_session.get()));
            return false;
        }
    }
    if (sftp_rename(sftp.get(), partial.toUtf8().constData(), m_remoteDir.toUtf8().constData()) != SSH_OK) {
        // Another client may have finished the same upload first; that copy is identical by construction.
        if (SftpAttributesPtr done(
                sftp_stat(sftp.get(), (m_remoteDir + QStringLiteral("/.complete")).toUtf8().constData()));
            !done) {
            error = QStringLiteral("cannot move the runner into %1 on %2: %3")
                        .arg(m_remoteDir, endpoint(), sshError(m_session.get()));
            return false;
        }
    }
    qCInfo(lcHosts).noquote() << "deployed runner" << bundle.hash() << "to" << endpoint() << uploaded
                              << "files";
    return true;
}

bool SshConnection::uploadFile(sftp_session sftp, const QString &local, const QString &remote, QString &error)
{
    QFile in(local);
    if (!in.open(QIODevice::ReadOnly)) {
        error = QStringLiteral("cannot read %1: %2").arg(local, in.errorString());
        return false;
    }
    SftpFilePtr out(sftp_open(sftp, remote.toUtf8().constData(), O_WRONLY | O_CREAT | O_TRUNC, 0644));
    if (!out) {
        error =
            QStringLiteral("cannot create %1 on %2: %3").arg(remote, endpoint(), sshError(m_session.get()));
        return false;
    }
    while (!in.atEnd()) {
        const QByteArray chunk = in.read(32 * 1024);
        if (sftp_write(out.get(), chunk.constData(), size_t(chunk.size())) != chunk.size()) {
            error = QStringLiteral("writing %1 on %2 failed: %3")
                        .arg(remote, endpoint(), sshError(m_session.get()));
            return false;
        }
    }
    return true;
}

QString SshConnection::remoteCommand(int slot, const QStringList &prefix) const
{
    QStringList env{QStringLiteral("PYTHONPATH=%1/runner:%1").arg(shellQuote(m_remoteDir)),
                    QStringLiteral("PYTHONDONTWRITEBYTECODE=1"), QStringLiteral("PYTHONUNBUFFERED=1")};
    if (m_config.backend == QStringLiteral("neuron"))
        env << QStringLiteral("NEURON_RT_VISIBLE_CORES=%1").arg(slot);
    for (auto it = m_config.environment.begin(); it != m_config.environment.end(); ++it)
        env << it.key() + u'=' + shellQuote(it.value());
    QString python = m_config.python.isEmpty() ? QStringLiteral("python3") : shellQuote(m_config.python);
    QString activate;
    if (!m_config.venv.isEmpty())
        activate = QStringLiteral(". %1/bin/activate && ").arg(shellQuote(m_config.venv));
    QStringList wrapper;
    for (const QString &word : prefix)
        wrapper << shellQuote(word);
    return QStringLiteral("cd %1 && %2exec env %3 %4%5 -m accelopt_runner serve")
        .arg(shellQuote(m_remoteDir), activate, env.join(u' '),
             wrapper.isEmpty() ? QString() : wrapper.join(u' ') + u' ', python);
}

void SshConnection::openChannel(int slot, const QStringList &prefix)
{
    if (!m_session || !ssh_is_connected(m_session.get())) {
        Q_EMIT channelFailed(slot, QStringLiteral("not connected to %1").arg(endpoint()), true);
        return;
    }
    m_channels.erase(slot);
    SshChannelPtr channel(ssh_channel_new(m_session.get()));
    if (!channel || ssh_channel_open_session(channel.get()) != SSH_OK ||
        ssh_channel_request_exec(channel.get(), remoteCommand(slot, prefix).toUtf8().constData()) != SSH_OK) {
        const QString why = sshError(m_session.get());
        if (!ssh_is_connected(m_session.get())) {
            dropConnection(why);
            return;
        }
        Q_EMIT channelFailed(slot, QStringLiteral("cannot start the runner on %1: %2").arg(endpoint(), why),
                             false);
        return;
    }
    m_channels[slot] = std::move(channel);
    m_stderrTail.erase(slot);
    Q_EMIT channelOpened(slot);
}

void SshConnection::write(int slot, const QByteArray &data)
{
    auto it = m_channels.find(slot);
    if (it == m_channels.end())
        return;
    if (ssh_channel_write(it->second.get(), data.constData(), uint32_t(data.size())) != data.size()) {
        const QString why = sshError(m_session.get());
        if (!ssh_is_connected(m_session.get()))
            dropConnection(why);
        else {
            m_channels.erase(it);
            Q_EMIT channelClosed(slot, QStringLiteral("write failed: %1").arg(why));
        }
    }
}

void SshConnection::closeChannel(int slot)
{
    auto it = m_channels.find(slot);
    if (it == m_channels.end())
        return;
    ssh_channel_send_eof(it->second.get());
    m_channels.erase(it);
}

void SshConnection::shutdown()
{
    if (m_poll)
        m_poll->stop();
    if (m_keepalive)
        m_keepalive->stop();
    delete m_notifier;
    m_notifier = nullptr;
    m_channels.clear();
    m_session.reset();
}

void SshConnection::pump()
{
    if (!m_session)
        return;
    char buffer[64 * 1024];
    QList<int> closed;
    bool progress = true;
    while (progress) {
        progress = false;
        for (auto it = m_channels.begin(); it != m_channels.end(); ++it) {
            const int slot = it->first;
            ssh_channel channel = it->second.get();
            for (int isStderr = 0; isStderr <= 1; ++isStderr) {
                const int n = ssh_channel_read_nonblocking(channel, buffer, sizeof buffer, isStderr);
                if (n > 0) {
                    progress = true;
                    if (isStderr) {
                        const QString text = QString::fromUtf8(buffer, n);
                        qCDebug(lcHosts).noquote()
                            << endpoint() << "slot" << slot << "runner:" << text.trimmed();
                        QString &tail = m_stderrTail[slot];
                        tail = (tail + text).right(stderrTailChars);
                    } else
                        Q_EMIT channelData(slot, QByteArray(buffer, n));
                } else if (n == SSH_ERROR) {
                    if (!ssh_is_connected(m_session.get())) {
                        dropConnection(sshError(m_session.get()));
                        return;
                    }
                    closed << slot;
                    break;
                }
            }
            if (!closed.contains(slot) && (ssh_channel_is_eof(channel) || ssh_channel_is_closed(channel)))
                closed << slot;
        }
    }
    for (int slot : std::as_const(closed)) {
        // No exit status here: asking libssh for it can block until the server sends one.
        m_channels.erase(slot);
        QString reason = QStringLiteral("the runner on %1 ended").arg(endpoint());
        if (const QString why = lastLines(m_stderrTail[slot]); !why.isEmpty())
            reason += QStringLiteral(": ") + why;
        m_stderrTail.erase(slot);
        Q_EMIT channelClosed(slot, reason);
    }
    if (!ssh_is_connected(m_session.get()))
        dropConnection(QStringLiteral("the connection closed"));
}

void SshConnection::dropConnection(const QString &reason)
{
    if (!m_session)
        return;
    qCWarning(lcHosts).noquote() << "lost" << endpoint() << ":" << reason;
    shutdown();
    Q_EMIT connectionLost(QStringLiteral("lost the connection to %1: %2").arg(endpoint(), reason));
}
