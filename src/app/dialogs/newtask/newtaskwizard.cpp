#include "newtaskwizard.h"

#include "newtaskcheckpage.h"
#include "newtaskinputspage.h"
#include "newtaskkernelpage.h"
#include "newtaskreferencepage.h"
#include "theme.h"

NewTaskWizard::NewTaskWizard(AppContext *context, const Kernel &kernel, const QString &shippedDir,
                             UserPrompts *prompts, QWidget *parent)
    : QWizard(parent), m_context(context), m_kernel(kernel), m_shippedDir(shippedDir), m_prompts(prompts),
      m_kernelPage(new NewTaskKernelPage(this)), m_inputsPage(new NewTaskInputsPage(this)),
      m_referencePage(new NewTaskReferencePage(this)), m_checkPage(new NewTaskCheckPage(this))
{
    setObjectName(QStringLiteral("NewTaskWizard"));
    setWindowTitle(tr("New Task from %1").arg(kernel.name));
    // Qt Creator's look on every platform: a title and a subtitle over each page, no side picture.
    setWizardStyle(QWizard::ModernStyle);
    setOption(QWizard::NoBackButtonOnStartPage);
    setOption(QWizard::HaveFinishButtonOnEarlyPages, false);
    setPage(KernelPageId, m_kernelPage);
    setPage(InputsPageId, m_inputsPage);
    setPage(ReferencePageId, m_referencePage);
    setPage(CheckPageId, m_checkPage);
    setButtonText(QWizard::FinishButton, tr("Check and &Create"));
    setMinimumSize(760, 560);
}

NewTaskWizard::~NewTaskWizard() = default;

QString NewTaskWizard::functionName() const
{
    return m_kernelPage->function() ? m_kernelPage->function()->name : QString();
}

QStringList NewTaskWizard::parameters() const
{
    return m_kernelPage->function() ? m_kernelPage->function()->parameters : QStringList();
}

TaskDraft NewTaskWizard::draft() const
{
    TaskDraft d;
    d.name = m_inputsPage->taskName();
    d.description = tr("%1 from %2").arg(functionName(), m_kernel.name);
    d.function = functionName();
    d.inputs = m_inputsPage->inputs();
    d.relTol = m_referencePage->tolerance();
    d.kernelSource = m_kernel.source;
    d.kernelFile = m_kernel.path; // so F5 on the file finds this task later, however the kernel changes
    d.referenceSource = m_referencePage->referenceSource();
    return d;
}

QString NewTaskWizard::referenceFile() const
{
    return m_referencePage->referenceFile();
}

QString NewTaskWizard::parentDir() const
{
    return m_inputsPage->parentDir();
}

void NewTaskWizard::setCreated(const QString &folder, const QString &name)
{
    m_createdFolder = folder;
    m_createdName = name;
}

QString NewTaskWizard::howItWorks()
{
    return tr("A task is what Benchmark and Optimize check a kernel against: say the shapes of your kernel's "
              "inputs, then give a reference that computes the right answer; the wizard checks both on this "
              "machine's simulator before it creates the task.");
}

QString NewTaskWizard::errorHtml(const QString &html)
{
    return Theme::statusHtml(Theme::Status::Bad, html);
}

QString NewTaskWizard::okHtml(const QString &html)
{
    return Theme::statusHtml(Theme::Status::Good, html);
}
