#include "evalrun.h"

#include "clisshprompter.h"
#include "hostchoice.h"
#include "hosts/host.h"
#include "hosts/hostpool.h"

#include <QCommandLineParser>

EvalRun::Settings EvalRun::settingsOf(const QCommandLineParser &parser)
{
    Settings s;
    s.host = parser.value(QStringLiteral("host"));
    // applyOptions checked --jobs.
    if (parser.isSet(QStringLiteral("jobs")))
        s.jobs = qBound(1, parser.value(QStringLiteral("jobs")).toInt(), 64);
    s.backendGiven = parser.isSet(QStringLiteral("backend"));
    s.targetGiven = parser.isSet(QStringLiteral("target"));
    s.prompter = std::make_shared<CliSshPrompter>();
    return s;
}

EvalRun::EvalRun(const Settings &settings, QObject *parent) : QObject(parent), m_settings(settings) {}

EvalRun::~EvalRun()
{
    if (m_pool)
        m_pool->stop();
}

bool EvalRun::start(const QList<EvalBatch::Item> &items, QString &error)
{
    // No more local slots than items: an idle runner per slot costs a process each.
    HostConfig config;
    Host *host = HostChoice::create(m_settings.host,
                                    int(qMin<qsizetype>(m_settings.jobs, qMax<qsizetype>(1, items.size()))),
                                    config, error, m_settings.prompter);
    if (!host)
        return false;
    m_pool = std::make_unique<HostPool>();
    m_pool->addHost(host);
    connect(m_pool.get(), &HostPool::hostStateChanged, this,
            [this](Host *h, Host::State state, const QString &detail) {
                if (state == Host::State::Lost || state == Host::State::Failed ||
                    state == Host::State::VersionMismatch)
                    Q_EMIT hostTrouble(
                        QStringLiteral("host %1 %2: %3").arg(h->name(), Host::stateName(state), detail));
            });
    m_results = QList<Evaluation>(items.size());
    m_remaining = int(items.size());
    connect(m_pool.get(), &HostPool::evaluationFinished, this,
            [this](quint64 job, const Evaluation &evaluation) {
                const int index = m_order.value(job, -1);
                if (index < 0 || m_done)
                    return;
                m_results[index] = evaluation;
                Q_EMIT itemFinished(index, evaluation);
                // The pool stops with this object: not from inside its own signal.
                if (--m_remaining == 0) {
                    m_done = true;
                    Q_EMIT finished(m_results);
                }
            });
    m_pool->start();
    for (int i = 0; i < items.size(); ++i) {
        EvalRequest request = items.at(i).request;
        if (!m_settings.backendGiven)
            request.backend = config.backend;
        if (!m_settings.targetGiven)
            request.target = config.target;
        m_order.insert(m_pool->submit(request), i);
    }
    if (items.isEmpty())
        m_done = true;
    return true;
}

void EvalRun::cancel()
{
    if (m_done || !m_pool)
        return;
    m_done = true;
    m_pool->cancelAll();
    m_pool->stop();
}
