#include "mcpstdio.h"

#include "clilogging.h"

#include <QJsonDocument>
#include <QMutex>
#include <QMutexLocker>

#include <cerrno>
#include <cstring>
#include <thread>
#include <unistd.h>

// What the reader thread and this object share: the object may be gone while the thread still waits on a
// read, so the thread posts only while `target` is set, under the mutex the destructor takes to clear it.
struct McpStdio::Shared
{
    QMutex mutex;
    McpStdio *target = nullptr;

    template<typename F> void post(F &&f)
    {
        QMutexLocker lock(&mutex);
        if (target)
            QMetaObject::invokeMethod(target, std::forward<F>(f), Qt::QueuedConnection);
    }
};

McpStdio::McpStdio(QObject *parent) : QObject(parent), m_shared(std::make_shared<Shared>())
{
    m_shared->target = this;
}

McpStdio::~McpStdio()
{
    QMutexLocker lock(&m_shared->mutex);
    m_shared->target = nullptr;
}

bool McpStdio::open(QString &error)
{
    ::fflush(stdout);
    m_out = ::dup(STDOUT_FILENO);
    if (m_out < 0 || ::dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
        error = QStringLiteral("cannot set up stdout for the protocol: %1").arg(QString::fromLocal8Bit(std::strerror(errno)));
        return false;
    }
    // Detached: at exit it may still sit in read(), which nothing can interrupt portably; it only posts to
    // this object while it lives.
    std::thread([shared = m_shared] {
        QByteArray pending;
        bool dropping = false; // inside a line over the limit, until its newline
        char buffer[65536];
        for (;;) {
            const ssize_t n = ::read(STDIN_FILENO, buffer, sizeof buffer);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0)
                break;
            qsizetype start = 0;
            for (qsizetype i = 0; i < n; ++i) {
                if (buffer[i] != '\n')
                    continue;
                if (!dropping) {
                    pending.append(buffer + start, i - start);
                    if (pending.endsWith('\r'))
                        pending.chop(1);
                    if (!pending.trimmed().isEmpty())
                        shared->post([line = pending, shared] {
                            if (shared->target)
                                Q_EMIT shared->target->lineReceived(line);
                        });
                }
                pending.clear();
                dropping = false;
                start = i + 1;
            }
            if (!dropping)
                pending.append(buffer + start, n - start);
            if (pending.size() > maxLineBytes) {
                pending.clear();
                if (!dropping)
                    shared->post([shared] {
                        if (shared->target)
                            Q_EMIT shared->target->lineTooLong();
                    });
                dropping = true;
            }
        }
        if (!dropping && !pending.trimmed().isEmpty()) // a last message without its newline still counts
            shared->post([line = pending, shared] {
                if (shared->target)
                    Q_EMIT shared->target->lineReceived(line);
            });
        shared->post([shared] {
            if (shared->target)
                Q_EMIT shared->target->closed();
        });
    }).detach();
    return true;
}

void McpStdio::send(const QJsonObject &message)
{
    if (m_out < 0)
        return;
    // Compact JSON escapes every newline inside strings, so one message is one line.
    QByteArray bytes = QJsonDocument(message).toJson(QJsonDocument::Compact);
    bytes.append('\n');
    const char *data = bytes.constData();
    qsizetype left = bytes.size();
    while (left > 0) {
        const ssize_t n = ::write(m_out, data, size_t(left));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            qCWarning(lcCli) << "mcp: cannot write to the client:" << std::strerror(errno);
            return;
        }
        data += n;
        left -= n;
    }
}
