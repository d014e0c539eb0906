#pragma once

#include "hosts/host.h"

#include <QMap>
#include <QSet>

class QProcess;

// This machine: one `python3 -m accelopt_runner serve` child per slot, straight from the nkibench/ folder.
class LocalHost : public Host
{
    Q_OBJECT
public:
    explicit LocalHost(const HostConfig &config, const QString &nkibenchDir, QObject *parent = nullptr);
    ~LocalHost() override;

    void openSlot(int slot) override;
    void closeSlot(int slot) override;

private:
    QString m_nkibenchDir;
    QMap<int, QProcess *> m_processes;
    QSet<QProcess *> m_closing; // closed slots' runners, on their way out (closeSlot)
    static constexpr int closeGraceMs = 1000;
};
