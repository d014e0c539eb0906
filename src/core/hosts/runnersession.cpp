#include "hosts/runnersession.h"

#include "hosts/host.h"
#include "hosts/runnerclient.h"

#include <QIODevice>

RunnerSession::RunnerSession(Host *host, QObject *parent) : QObject(parent), m_host(host) {}

RunnerSession::~RunnerSession()
{
    if (m_runner)
        m_runner->sendShutdown();
    if (m_host)
        m_host->closeSlot(0);
}

void RunnerSession::start()
{
    connect(m_host, &Host::slotFailed, this, [this](int slot, const QString &error, bool) {
        if (slot == 0)
            Q_EMIT failed(QStringLiteral("the host could not start its runner: %1").arg(error));
    });
    connect(m_host, &Host::slotClosed, this, [this](int slot, const QString &reason) {
        if (slot == 0)
            Q_EMIT failed(QStringLiteral("the runner stopped: %1").arg(reason));
    });
    connect(m_host, &Host::slotOpened, this, [this](int slot, QIODevice *stream) {
        if (slot != 0)
            return;
        m_runner = std::make_unique<RunnerClient>(stream);
        Q_EMIT opened(m_runner.get());
    });
    m_host->openSlot(0);
}
