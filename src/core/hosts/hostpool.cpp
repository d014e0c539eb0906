#include "hosts/hostpool.h"

#include "common/logcategories.h"
#include "hosts/runnerclient.h"
#include "model/nkigeneration.h"

#include <QHash>
#include <QIODevice>
#include <QJsonArray>
#include <QTimer>

#include <algorithm>
#include <cmath>

HostPool::HostPool(QObject *parent) : QObject(parent) {}

HostPool::~HostPool()
{
    stop();
    qDeleteAll(m_slots);
}

void HostPool::addHost(Host *host)
{
    host->setParent(this);
    m_hosts.append(host);
    for (int i = 0; i < host->slotCount(); ++i) {
        auto *slot = new Slot;
        slot->host = host;
        slot->index = i;
        slot->watchdog = new QTimer(this);
        slot->watchdog->setSingleShot(true);
        // A runner enforces each eval's own timeout; the watchdog only catches a runner that stopped
        // answering.
        connect(slot->watchdog, &QTimer::timeout, this, [this, slot] {
            qCWarning(lcHosts) << slot->host->name() << "slot" << slot->index
                               << "stopped answering; restarting it";
            slot->host->closeSlot(slot->index);
            onSlotGone(slot->host, slot->index, QStringLiteral("the runner stopped answering"), false, false);
        });
        m_slots.append(slot);
    }
    connect(host, &Host::slotOpened, this,
            [this, host](int index, QIODevice *stream) { onSlotOpened(host, index, stream); });
    connect(host, &Host::slotFailed, this, [this, host](int index, const QString &error, bool transient) {
        onSlotGone(host, index, error, true, transient);
    });
    connect(host, &Host::slotClosed, this, [this, host](int index, const QString &reason) {
        onSlotGone(host, index, reason, false, false);
    });
    connect(host, &Host::stateChanged, this, [this, host](Host::State state, const QString &detail) {
        Q_EMIT hostStateChanged(host, state, detail);
    });
}

void HostPool::start()
{
    m_stopping = false;
    for (Slot *slot : std::as_const(m_slots)) {
        if (slot->state != SlotState::Closed)
            continue;
        slot->state = SlotState::Opening;
        slot->host->setState(Host::State::Connecting);
        slot->host->openSlot(slot->index);
    }
}

void HostPool::stop()
{
    m_stopping = true;
    for (Slot *slot : std::as_const(m_slots)) {
        if (slot->client)
            slot->client->sendShutdown();
        releaseClient(slot);
        slot->watchdog->stop();
        slot->host->closeSlot(slot->index);
        slot->state = SlotState::Closed;
    }
    for (Host *host : std::as_const(m_hosts))
        host->setState(Host::idleState(host->config()));
}

quint64 HostPool::submit(const EvalRequest &request)
{
    const quint64 id = m_nextJob++;
    m_jobs.insert(id, Job{request, NkiGeneration::name(NkiGeneration::of(request.kernelSource)), 0});
    m_queue.append(id);
    // Deferred so a caller can connect to evaluationFinished after submit() even when the answer is
    // immediate.
    QMetaObject::invokeMethod(
        this,
        [this] {
            dispatch();
            failQueueIfNoSlotCanServe();
        },
        Qt::QueuedConnection);
    return id;
}

void HostPool::cancel(quint64 job)
{
    if (m_queue.removeAll(job) > 0) {
        m_jobs.remove(job);
        return;
    }
    for (Slot *slot : std::as_const(m_slots))
        if (slot->state == SlotState::Busy && slot->client && (slot->job == job || slot->next == job)) {
            slot->client->sendCancel(slot->job == job ? slot->requestId : slot->nextRequestId);
            m_jobs.remove(job); // its result, when it comes, is dropped
        }
}

void HostPool::cancelAll()
{
    const QList<quint64> jobs = m_jobs.keys();
    for (quint64 job : jobs)
        cancel(job);
}

int HostPool::runningCount() const
{
    int n = 0;
    for (const Slot *slot : m_slots)
        n += slot->state == SlotState::Busy ? 1 : 0;
    return n;
}

int HostPool::liveSlotCount() const
{
    int n = 0;
    for (const Slot *slot : m_slots)
        n += (slot->state == SlotState::Idle || slot->state == SlotState::Busy) ? 1 : 0;
    return n;
}

HostPool::Slot *HostPool::slotFor(Host *host, int index)
{
    for (Slot *slot : std::as_const(m_slots))
        if (slot->host == host && slot->index == index)
            return slot;
    return nullptr;
}

void HostPool::onSlotOpened(Host *host, int index, QIODevice *stream)
{
    Slot *slot = slotFor(host, index);
    if (!slot || m_stopping)
        return;
    releaseClient(slot);
    slot->client = new RunnerClient(stream, this);
    slot->state = SlotState::Greeting;
    connect(slot->client, &RunnerClient::helloReceived, this,
            [this, slot](const QJsonObject &hello) { onHello(slot, hello); });
    connect(slot->client, &RunnerClient::resultReceived, this,
            [this, slot](const Evaluation &evaluation) { onResult(slot, evaluation); });
    connect(slot->client, &RunnerClient::protocolNoise, this, [slot](const QString &message) {
        qCWarning(lcHosts).noquote() << slot->host->name() << "slot" << slot->index << message;
    });
    slot->watchdog->start(60000);
    slot->client->sendHello();
}

void HostPool::onHello(Slot *slot, const QJsonObject &hello)
{
    slot->watchdog->stop();
    const QJsonValue version = hello.contains(QStringLiteral("protocol_version"))
                                   ? hello.value(QStringLiteral("protocol_version"))
                                   : hello.value(QStringLiteral("protocol"));
    if (version.toInt(-1) != RunnerClient::protocolVersion) {
        const QString detail = QStringLiteral("the runner speaks protocol %1, this build speaks %2")
                                   .arg(version.toVariant().toString())
                                   .arg(RunnerClient::protocolVersion);
        slot->state = SlotState::Dead;
        slot->lastError = detail;
        releaseClient(slot);
        slot->host->closeSlot(slot->index);
        slot->host->setState(Host::State::VersionMismatch, detail);
        failQueueIfNoSlotCanServe();
        return;
    }
    slot->neuronGenerations.clear();
    for (const QJsonValue &g : hello.value(QStringLiteral("backends"))
                                   .toObject()
                                   .value(QStringLiteral("neuron"))
                                   .toObject()
                                   .value(QStringLiteral("generations"))
                                   .toArray())
        slot->neuronGenerations << g.toString();
    slot->state = SlotState::Idle;
    slot->restarts = 0;
    slot->reconnects = 0;
    slot->unreachableFor.invalidate();
    refreshHostState(slot->host);
    dispatch();
}

HostPool::Slot *HostPool::nextIdleSlot(const QList<Slot *> &skipped) const
{
    // With free slots on several hosts, the one with the least work per unit of its weight goes first; on a
    // tie, the host added first.
    QHash<const Host *, int> busy;
    for (const Slot *slot : m_slots)
        busy[slot->host] += slot->state == SlotState::Busy ? 1 : 0;
    Slot *best = nullptr;
    double bestLoad = 0;
    for (Slot *slot : m_slots) {
        if (slot->state != SlotState::Idle || !slot->client || skipped.contains(slot))
            continue;
        const double load = (busy.value(slot->host) + 1) / slot->host->config().weight;
        if (!best || load < bestLoad) {
            best = slot;
            bestLoad = load;
        }
    }
    return best;
}

qsizetype HostPool::pickFor(const Slot *slot) const
{
    // The first job this slot can take; a job no slot can take goes anyway, so the runner's refusal (which
    // offers the port) comes back instead of a job that waits forever.
    for (qsizetype i = 0; i < m_queue.size(); ++i) {
        const Job &candidate = m_jobs[m_queue.at(i)];
        if (accepts(slot, candidate) || !someSlotCouldTake(candidate))
            return i;
    }
    return -1;
}

void HostPool::send(Slot *slot, quint64 job, bool asNext)
{
    Job &entry = m_jobs[job];
    ++entry.attempts;
    const QString requestId = QStringLiteral("j%1.a%2").arg(job).arg(entry.attempts);
    if (asNext) {
        slot->next = job;
        slot->nextRequestId = requestId;
    } else {
        slot->job = job;
        slot->requestId = requestId;
        slot->running.start();
        slot->state = SlotState::Busy;
        slot->watchdog->start(watchdogMs(entry.request.timeoutSeconds));
    }
    slot->client->sendEval(entry.request.toJson(requestId));
}

void HostPool::dispatch()
{
    QList<Slot *> skipped; // idle, but nothing queued is for them
    while (!m_queue.isEmpty()) {
        Slot *slot = nextIdleSlot(skipped);
        if (!slot)
            break;
        const qsizetype pick = pickFor(slot);
        if (pick < 0) {
            skipped << slot;
            continue;
        }
        send(slot, m_queue.takeAt(pick), false);
        refreshHostState(slot->host);
    }
    // Every slot is busy and work waits: queue one more behind each short evaluation.
    for (Slot *slot : std::as_const(m_slots)) {
        if (m_queue.isEmpty())
            break;
        if (slot->state != SlotState::Busy || !slot->client || slot->next != 0 || slot->lastEvalMs < 0 ||
            slot->lastEvalMs >= m_prefetchBelowMs)
            continue;
        if (const qsizetype pick = pickFor(slot); pick >= 0)
            send(slot, m_queue.takeAt(pick), true);
    }
    if (m_queue.isEmpty() && runningCount() == 0)
        Q_EMIT idle();
}

int HostPool::watchdogMs(double timeoutSeconds)
{
    // NaN, infinity or a huge value would overflow the timer's int and switch the watchdog off; the runner
    // refuses such a request anyway, so the watchdog need only outlast the runner's own range.
    double seconds = std::isfinite(timeoutSeconds) ? timeoutSeconds : EvalRequest::maxTimeoutSeconds;
    seconds = std::clamp(seconds, EvalRequest::minTimeoutSeconds, EvalRequest::maxTimeoutSeconds);
    return int((seconds + 120.0) * 1000.0);
}

bool HostPool::accepts(const Slot *slot, const Job &job)
{
    if (job.request.backend != QStringLiteral("neuron") || slot->neuronGenerations.isEmpty())
        return true; // nkisim takes both; an SDK that did not say is asked
    return slot->neuronGenerations.contains(job.generation);
}

bool HostPool::someSlotCouldTake(const Job &job) const
{
    for (const Slot *slot : m_slots) {
        if (slot->state == SlotState::Dead)
            continue;
        // Not greeted yet: its SDK is unknown, so it may.
        if (slot->state != SlotState::Idle && slot->state != SlotState::Busy)
            return true;
        if (accepts(slot, job))
            return true;
    }
    return false;
}

void HostPool::onResult(Slot *slot, const Evaluation &evaluation)
{
    if (slot->state == SlotState::Busy && slot->next != 0 && evaluation.id == slot->nextRequestId) {
        // the queued one answered first: it was cancelled before it started
        const quint64 job = std::exchange(slot->next, 0);
        slot->nextRequestId.clear();
        finish(job, evaluation);
        return;
    }
    if (slot->state != SlotState::Busy || evaluation.id != slot->requestId) {
        qCDebug(lcHosts) << "dropped a stale result" << evaluation.id;
        return;
    }
    slot->watchdog->stop();
    const quint64 job = slot->job;
    slot->lastEvalMs = slot->running.elapsed();
    slot->state = SlotState::Idle;
    slot->job = 0;
    slot->requestId.clear();
    if (slot->next != 0) { // already at the runner, and running now
        slot->job = std::exchange(slot->next, 0);
        slot->requestId = std::exchange(slot->nextRequestId, QString());
        slot->running.start();
        slot->state = SlotState::Busy;
        slot->watchdog->start(watchdogMs(m_jobs.value(slot->job).request.timeoutSeconds));
    }
    Evaluation e = evaluation;
    e.host = QStringLiteral("%1#%2").arg(slot->host->name()).arg(slot->index);
    e.attempts = m_jobs.value(job).attempts;
    finish(job, e);
    refreshHostState(slot->host);
    dispatch();
}

void HostPool::onSlotGone(Host *host, int index, const QString &reason, bool failedToOpen, bool transient)
{
    Slot *slot = slotFor(host, index);
    if (!slot || slot->state == SlotState::Dead)
        return;
    slot->watchdog->stop();
    slot->lastError = reason;
    releaseClient(slot);
    const bool wasBusy = slot->state == SlotState::Busy;
    const quint64 job = slot->job;
    const quint64 next = std::exchange(slot->next, 0);
    slot->job = 0;
    slot->requestId.clear();
    slot->nextRequestId.clear();
    slot->state = SlotState::Closed;
    if (m_stopping)
        return;
    if (next != 0 && m_jobs.contains(next)) { // it never started: not an attempt
        --m_jobs[next].attempts;
        m_queue.prepend(next);
    }
    if (wasBusy && m_jobs.contains(job)) {
        Job &lost = m_jobs[job];
        // `transient`: the connection to the host dropped, which says nothing about the kernel.
        if (transient ? ++lost.connectionLosses >= maxConnectionLosses : ++lost.runnerLosses >= maxAttempts)
            finish(job, Evaluation::failure(
                            QString(), EvalStatus::InfraError,
                            transient ? QStringLiteral("the connection to the host dropped %1 times while "
                                                       "evaluating: %2")
                                            .arg(maxConnectionLosses)
                                            .arg(reason)
                                      : QStringLiteral("the host was lost %1 times while evaluating: %2")
                                            .arg(maxAttempts)
                                            .arg(reason)));
        else
            m_queue.prepend(job); // first in line again: it waited longest
        dispatch();               // another slot may be idle right now
    }
    if (transient) {
        if (!slot->unreachableFor.isValid())
            slot->unreachableFor.start();
        if (slot->unreachableFor.elapsed() < unreachableWindowMs) {
            const int delayMs = qMin(500 << qMin(slot->reconnects, 5), maxReconnectDelayMs);
            ++slot->reconnects;
            host->setState(Host::State::Lost,
                           QStringLiteral("%1; trying again in %2 s").arg(reason).arg(delayMs / 1000.0));
            reopenLater(slot, delayMs);
            return;
        }
        slot->state = SlotState::Dead;
        slot->lastError =
            QStringLiteral("unreachable for %1 s: %2").arg(unreachableWindowMs / 1000).arg(reason);
        host->setState(Host::State::Failed, slot->lastError);
        failQueueIfNoSlotCanServe();
        dispatch();
        return;
    }
    // A runner that cannot even start (wrong interpreter) will not start on the fifth try either.
    const int limit = failedToOpen ? 1 : maxSlotRestarts;
    if (++slot->restarts > limit) {
        slot->state = SlotState::Dead;
        host->setState(Host::State::Failed, reason);
        failQueueIfNoSlotCanServe();
        dispatch();
        return;
    }
    host->setState(failedToOpen ? Host::State::Failed : Host::State::Lost, reason);
    // Back off before reconnecting so a host that is down is not hammered.
    reopenLater(slot, failedToOpen ? 500 * (1 << qMin(slot->restarts, 6)) : 200 * slot->restarts);
}

void HostPool::reopenLater(Slot *slot, int delayMs)
{
    QTimer::singleShot(delayMs, this, [this, slot] {
        if (m_stopping || slot->state != SlotState::Closed)
            return;
        slot->state = SlotState::Opening;
        slot->host->setState(Host::State::Connecting);
        slot->host->openSlot(slot->index);
    });
}

void HostPool::finish(quint64 job, Evaluation evaluation)
{
    if (!m_jobs.contains(job))
        return; // cancelled, or already reported
    m_jobs.remove(job);
    Q_EMIT evaluationFinished(job, evaluation);
}

void HostPool::releaseClient(Slot *slot)
{
    if (!slot->client)
        return;
    slot->client->disconnect(this);
    slot->client->deleteLater();
    slot->client = nullptr;
}

void HostPool::refreshHostState(Host *host)
{
    bool anyBusy = false, anyLive = false;
    for (const Slot *slot : std::as_const(m_slots)) {
        if (slot->host != host)
            continue;
        anyBusy |= slot->state == SlotState::Busy;
        anyLive |= slot->state == SlotState::Idle || slot->state == SlotState::Busy;
    }
    if (anyLive)
        host->setState(anyBusy ? Host::State::Busy : Host::State::Ready);
}

void HostPool::failQueueIfNoSlotCanServe()
{
    QString lastError;
    for (const Slot *slot : std::as_const(m_slots)) {
        if (slot->state != SlotState::Dead)
            return;
        lastError = slot->lastError;
    }
    if (m_slots.isEmpty())
        lastError = QStringLiteral("no hosts are configured");
    const QList<quint64> queued = m_queue;
    m_queue.clear();
    for (quint64 job : queued)
        finish(job, Evaluation::failure(QString(), EvalStatus::InfraError,
                                        QStringLiteral("no host can run evaluations: %1").arg(lastError)));
}
