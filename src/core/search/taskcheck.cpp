#include "search/taskcheck.h"

#include "hosts/host.h"
#include "hosts/runnerclient.h"

#include <QIODevice>
#include <QJsonArray>

struct TaskCheck::Parts
{
    Host *host = nullptr;
    std::unique_ptr<RunnerClient> runner;
    QJsonObject message;
    bool running = false;
};

TaskCheck::TaskCheck(Host *host, QObject *parent) : QObject(parent), m_parts(std::make_unique<Parts>())
{
    m_parts->host = host;
}

TaskCheck::~TaskCheck()
{
    if (m_parts->runner)
        m_parts->runner->sendShutdown();
    if (m_parts->host)
        m_parts->host->closeSlot(0);
}

void TaskCheck::start(const QJsonObject &task, const QString &kernel, const QString &function)
{
    m_parts->message = {{QStringLiteral("op"), QStringLiteral("task_check")},
                        {QStringLiteral("id"), QStringLiteral("check1")},
                        {QStringLiteral("task"), task}};
    if (!kernel.isEmpty())
        m_parts->message.insert(QStringLiteral("kernel"), kernel);
    if (!function.isEmpty())
        m_parts->message.insert(QStringLiteral("function"), function);
    m_parts->running = true;
    Host *host = m_parts->host;
    connect(host, &Host::slotFailed, this, [this](int, const QString &error, bool) {
        Result r;
        r.error = QStringLiteral("the host could not start its runner: %1").arg(error);
        done(r);
    });
    connect(host, &Host::slotClosed, this, [this](int, const QString &reason) {
        Result r;
        r.error = QStringLiteral("the runner stopped before the check ended: %1").arg(reason);
        done(r);
    });
    connect(host, &Host::slotOpened, this, [this](int, QIODevice *stream) {
        m_parts->runner = std::make_unique<RunnerClient>(stream);
        connect(m_parts->runner.get(), &RunnerClient::taskCheckResultReceived, this,
                [this](const QJsonObject &o) {
                    Result r;
                    r.raw = o;
                    r.ok = o.value(QStringLiteral("ok")).toBool();
                    r.error = o.value(QStringLiteral("error")).toString();
                    for (const QJsonValue &v : o.value(QStringLiteral("checks")).toArray()) {
                        const QJsonObject c = v.toObject();
                        r.checks.append({c.value(QStringLiteral("check")).toString(),
                                         c.value(QStringLiteral("ok")).toBool(),
                                         c.value(QStringLiteral("detail")).toString()});
                    }
                    if (!r.ok && r.error.isEmpty())
                        r.error = QStringLiteral("the task check failed without saying why");
                    done(r);
                });
        // A runner too old for task_check answers with an error line carrying the request's id.
        connect(m_parts->runner.get(), &RunnerClient::resultReceived, this, [this](const Evaluation &e) {
            if (e.id != m_parts->message.value(QStringLiteral("id")).toString())
                return;
            Result r;
            r.error = QStringLiteral("the host's runner cannot check tasks: %1").arg(e.error);
            done(r);
        });
        m_parts->runner->sendTaskCheck(m_parts->message);
    });
    host->openSlot(0);
}

void TaskCheck::done(const Result &result)
{
    if (!m_parts->running)
        return;
    m_parts->running = false;
    // Queued: a check refused before it starts ends inside start(), before the caller waits for it.
    QMetaObject::invokeMethod(this, [this, result]() { Q_EMIT finished(result); }, Qt::QueuedConnection);
}
