#include "portcontroller.h"

#include "appcontext.h"
#include "comparecontroller.h"
#include "editortabs.h"
#include "kerneleditor.h"
#include "runcontroller.h"
#include "userprompts.h"

#include "model/nkigeneration.h"

#include <QAction>
#include <QFileInfo>
#include <QMainWindow>
#include <QStatusBar>

PortController::PortController(const WindowParts &parts, RunController *run, CompareController *compare)
    : QObject(parts.window), m_parts(parts), m_run(run), m_compare(compare),
      m_action(new QAction(tr("&Port to Current NKI"), this))
{
    m_action->setStatusTip(tr("Rewrite this classic (neuronxcc.nki) kernel in the nki namespace that Neuron SDK 2.30 "
                              "and later require, checked equal on nkisim, and compare the two"));
    connect(m_action, &QAction::triggered, this, &PortController::port);
    connect(m_parts.context, &AppContext::portProgress, this, [this](quint64 job, const QString &message) {
        if (job == m_job)
            m_parts.window->statusBar()->showMessage(message, 30000);
    });
    connect(m_parts.context, &AppContext::kernelPorted, this, &PortController::finished);
}

PortController::~PortController() = default;

void PortController::port()
{
    const QString title = tr("Port to Current NKI");
    if (m_job) {
        m_parts.prompts->warn(m_parts.window, title, tr("A port is already being made; wait for it to finish."));
        return;
    }
    KernelEditor *editor = m_parts.editors->currentEditor();
    if (!editor) {
        m_parts.prompts->warn(m_parts.window, title, tr("Open the classic kernel to port first."));
        return;
    }
    if (NkiGeneration::of(editor->text()) == NkiGeneration::Kind::Current) {
        m_parts.prompts->warn(m_parts.window, title,
                              tr("%1 already uses the current API (it imports nki).").arg(editor->displayName()));
        return;
    }
    QJsonObject taskRef;
    QString taskName;
    if (!m_run->taskOf(editor, taskRef, taskName))
        return;
    KernelPort::Request request;
    request.kernel = editor->text();
    request.task = taskRef;

    m_pair = ComparePair{};
    m_pair.left.name = editor->displayName();
    m_pair.left.text = editor->text();
    m_pair.left.filePath = editor->filePath();
    m_pair.task = taskName;
    m_pair.taskRef = taskRef;
    m_action->setEnabled(false);
    // Equality is nkisim's to decide, so the engine runs the port on this machine whatever the run target is.
    m_job = m_parts.context->portKernel(request);
}

void PortController::finished(quint64 job, const KernelPort::Result &result)
{
    if (job != m_job)
        return;
    m_job = 0;
    m_action->setEnabled(true);
    const QString title = tr("Port to Current NKI");
    ComparePair pair = m_pair;
    if (!result.ok) {
        m_parts.prompts->warn(m_parts.window, title, tr("%1 was not ported.\n\n%2").arg(pair.left.name, result.error));
        return;
    }
    pair.right.name =
        QStringLiteral("%1 (current NKI, ported by %2)").arg(QFileInfo(pair.left.name).completeBaseName(), result.by);
    pair.right.text = result.kernel;
    m_parts.window->statusBar()->showMessage(tr("Ported by %1; nkisim finds it equal (relative L2 difference %2)")
                                                 .arg(result.by)
                                                 .arg(result.equal.value(QStringLiteral("l2_rel_diff")).toDouble()),
                                             30000);
    m_compare->open(pair);
}
