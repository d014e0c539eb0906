#pragma once

#include "hosts/host.h"

#include <QLabel>
#include <QMap>

// The hosts' states in the status bar: one coloured word per host, updated from the states the engine's hosts
// report (a connection test, a benchmark, a search).
class HostStatusWidget : public QLabel
{
    Q_OBJECT
public:
    explicit HostStatusWidget(QWidget *parent = nullptr);

    // Each host starts in its idle state (a local host is ready: it starts on demand), until told otherwise.
    void setHosts(const QList<HostConfig> &hosts);
    void setState(const QString &name, Host::State state, const QString &detail);
    Host::State stateOf(const QString &name) const { return m_states.value(name, Host::State::Offline); }

private:
    void refresh();

    QStringList m_names;
    QMap<QString, Host::State> m_states;
    QMap<QString, QString> m_details;
};
