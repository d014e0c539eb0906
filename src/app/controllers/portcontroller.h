#pragma once

#include "windowparts.h"

#include "diff/comparepair.h"
#include "port/kernelport.h"

#include <QObject>

class CompareController;
class QAction;
class RunController;

// Tools > Port to Current NKI: the current tab's classic kernel ported to the nki namespace (the runner's rules,
// else the executor model), checked equal on nkisim on this machine, and opened in Compare beside the original,
// where Take Right Side keeps it. The port runs in the engine (Engine::portKernel, on its thread, with the
// window's llm.json); this controller only asks and shows the answer.
class PortController : public QObject
{
    Q_OBJECT
public:
    PortController(const WindowParts &parts, RunController *run, CompareController *compare);
    ~PortController() override;

    QAction *portAction() const { return m_action; }
    void port();

private:
    void finished(quint64 job, const KernelPort::Result &result);

    WindowParts m_parts;
    RunController *m_run;
    CompareController *m_compare;
    QAction *m_action;
    quint64 m_job = 0;  // the port on its way, 0 when none
    ComparePair m_pair; // its left side, the original
};
