#include "search/taskcheck.h"

#include "hosts/runnerclient.h"
#include "hosts/runnersession.h"

#include <QJsonArray>

struct TaskCheck::Parts
{
    explicit Parts(Host *host) : session(host) {}
    RunnerSession session;
    QJsonObject message;
    bool running = false;
};

TaskCheck::TaskCheck(Host *host, QObject *parent) : QObject(parent), m_parts(std::make_unique<Parts>(host)) {}

TaskCheck::~TaskCheck() = default;

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
    connect(&m_parts->session, &RunnerSession::failed, this, [this](const QString &error) {
        Result r;
        r.error = error;
        done(r);
    });
    connect(&m_parts->session, &RunnerSession::opened, this, [this](RunnerClient *runner) {
        connect(runner, &RunnerClient::taskCheckResultReceived, this, [this](const QJsonObject &o) {
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
        connect(runner, &RunnerClient::resultReceived, this, [this](const Evaluation &e) {
            if (e.id != m_parts->message.value(QStringLiteral("id")).toString())
                return;
            Result r;
            r.error = QStringLiteral("the host's runner cannot check tasks: %1").arg(e.error);
            done(r);
        });
        runner->sendTaskCheck(m_parts->message);
    });
    m_parts->session.start();
}

void TaskCheck::done(const Result &result)
{
    if (!m_parts->running)
        return;
    m_parts->running = false;
    // Queued: a check refused before it starts ends inside start(), before the caller waits for it.
    QMetaObject::invokeMethod(
        this, [this, result]() { Q_EMIT finished(result); }, Qt::QueuedConnection);
}
