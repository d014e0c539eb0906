#include "hosts/host.h"

#include "common/logcategories.h"

Host::Host(const HostConfig &config, QObject *parent)
    : QObject(parent), m_config(config), m_state(idleState(config))
{
}

QString Host::stateName(State state)
{
    switch (state) {
    case State::Offline:
        return QStringLiteral("not connected");
    case State::Connecting:
        return QStringLiteral("connecting");
    case State::Ready:
        return QStringLiteral("ready");
    case State::Busy:
        return QStringLiteral("busy");
    case State::Lost:
        return QStringLiteral("lost");
    case State::VersionMismatch:
        return QStringLiteral("version mismatch");
    case State::Failed:
        return QStringLiteral("failed");
    }
    return QStringLiteral("unknown");
}

Host::State Host::idleState(const HostConfig &config)
{
    return config.kind == HostConfig::Kind::Local ? State::Ready : State::Offline;
}

void Host::setState(State state, const QString &detail)
{
    if (state == m_state && detail == m_detail)
        return;
    m_state = state;
    m_detail = detail;
    // Ready and busy flip with every evaluation: worth a debug line, not an info line each time.
    if (state == State::Ready || state == State::Busy)
        qCDebug(lcHosts).noquote() << "host" << name() << "is" << stateName(state);
    else
        qCInfo(lcHosts).noquote() << "host" << name() << "is" << stateName(state) << detail;
    Q_EMIT stateChanged(state, detail);
}
