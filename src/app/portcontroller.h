#pragma once

#include "windowparts.h"

#include <QObject>
#include <QPointer>

#include <memory>

class CompareController;
class Host;
class KernelPort;
class QAction;
class RunController;

// Tools > Port to Current NKI: the current tab's classic kernel ported to the nki namespace (the runner's rules,
// else the executor model), checked equal on nkisim on this machine, and opened in Compare beside the original,
// where Take Right Side keeps it.
class PortController : public QObject
{
    Q_OBJECT
public:
    PortController(const WindowParts &parts, RunController *run, CompareController *compare);
    ~PortController() override;

    QAction *portAction() const { return m_action; }
    void port();

private:
    void finish();

    WindowParts m_parts;
    RunController *m_run;
    CompareController *m_compare;
    QAction *m_action;
    std::unique_ptr<Host> m_host;
    std::unique_ptr<KernelPort> m_job;
};
