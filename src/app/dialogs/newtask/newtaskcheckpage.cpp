#include "newtaskcheckpage.h"

#include "appcontext.h"
#include "applogging.h"
#include "newtaskwizard.h"
#include "theme.h"

#include <QDir>
#include <QHeaderView>
#include <QLabel>
#include <QProgressBar>
#include <QTreeWidget>
#include <QVBoxLayout>

NewTaskCheckPage::NewTaskCheckPage(NewTaskWizard *wizard)
    : QWizardPage(wizard), m_wizard(wizard), m_context(wizard->context()), m_summary(new QLabel(this)),
      m_progress(new QProgressBar(this)), m_status(new QLabel(this)), m_checks(new QTreeWidget(this))
{
    setTitle(tr("Check"));
    setSubTitle(tr("The task is checked on this machine's simulator before it is created."));
    setCommitPage(false);
    m_summary->setObjectName(QStringLiteral("checkSummary"));
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_progress->setObjectName(QStringLiteral("checkProgress"));
    m_progress->setRange(0, 0); // the runner does not say how far it is, only what it does
    m_progress->setTextVisible(false);
    m_progress->hide();
    m_status->setObjectName(QStringLiteral("checkStatus"));
    m_status->setWordWrap(true);
    m_status->setTextFormat(Qt::RichText);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_checks->setObjectName(QStringLiteral("checkList"));
    m_checks->setHeaderLabels({tr("Check"), tr("Result"), tr("Detail")});
    m_checks->setRootIsDecorated(false);
    m_checks->setWordWrap(true);
    m_checks->header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    m_checks->header()->setSectionResizeMode(1, QHeaderView::ResizeToContents);
    m_checks->header()->setStretchLastSection(true);

    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_summary);
    layout->addSpacing(6);
    layout->addWidget(m_progress);
    layout->addWidget(m_status);
    layout->addWidget(m_checks, 1);
    layout->addStretch(0);

    connect(m_context, &AppContext::taskProgress, this, [this](quint64 job, const QString &message) {
        if (job == m_job)
            m_status->setText(message.toHtmlEscaped());
    });
    connect(m_context, &AppContext::taskCreationFinished, this,
            [this](quint64 job, const TaskCreation::Result &result) {
                if (job == m_job)
                    finish(result);
            });
}

NewTaskCheckPage::~NewTaskCheckPage()
{
    if (m_job != 0)
        m_context->cancelTaskCreation(m_job); // closed while checking: the draft folder goes
}

void NewTaskCheckPage::initializePage()
{
    const TaskDraft draft = m_wizard->draft();
    QStringList inputs;
    for (const TaskDraft::Input &input : draft.inputs)
        inputs << QStringLiteral("%1 %2 %3").arg(input.name, TaskDraft::shapeText(input.shape), input.dtype);
    m_summary->setText(tr("Task <b>%1</b> for <b>%2</b> (%3), tolerance %4, in %5.")
                           .arg(draft.name.toHtmlEscaped(), draft.function.toHtmlEscaped(),
                                inputs.join(QStringLiteral(", ")).toHtmlEscaped())
                           .arg(draft.relTol)
                           .arg(QDir::toNativeSeparators(m_wizard->parentDir()).toHtmlEscaped()));
    m_status->setText(
        tr("Check and Create runs the reference twice (it must give the same answer), checks the "
           "shapes and the memory, then runs the kernel at the small and the full size."));
    m_checks->clear();
    m_checks->hide(); // an empty list says nothing: it shows with the first check's outcome
}

void NewTaskCheckPage::cleanupPage()
{
    m_context->cancelTaskCreation(m_job); // Back while checking: the draft folder goes with it
    m_job = 0;
    m_progress->hide();
    Q_EMIT completeChanged();
}

bool NewTaskCheckPage::validatePage()
{
    if (m_created)
        return true;
    if (!running())
        start();
    return false; // the wizard closes when the check has passed (finish)
}

bool NewTaskCheckPage::isComplete() const
{
    return !running();
}

void NewTaskCheckPage::start()
{
    const TaskDraft draft = m_wizard->draft();
    const QString referenceFile = m_wizard->referenceFile();
    QString error;
    // A chosen reference file is read, and the draft checked, on the engine's thread.
    if (referenceFile.isEmpty() && !draft.validate(error)) {
        m_status->setText(NewTaskWizard::errorHtml(error.toHtmlEscaped()));
        return;
    }
    m_checks->clear();
    m_progress->show();
    m_status->setText(tr("Checking on this machine…"));
    qCInfo(lcApp).noquote() << "creating task" << draft.name << "in" << m_wizard->parentDir();
    // Whether a task is right is nkisim's to decide, so the check runs on this machine whatever the run
    // target.
    m_job = m_context->createTask(draft, referenceFile, m_wizard->parentDir(), m_wizard->shippedDir(),
                                  m_wizard->kernel().path);
    Q_EMIT completeChanged(); // Check and Create and Back wait for the check
}

void NewTaskCheckPage::finish(const TaskCreation::Result &result)
{
    m_result = result;
    m_progress->hide();
    for (const TaskCheck::Item &item : result.check.checks) {
        auto *row =
            new QTreeWidgetItem(m_checks, {item.check, item.ok ? tr("ok") : tr("failed"), item.detail});
        row->setForeground(1, QBrush(Theme::statusColor(item.ok ? Theme::Status::Good : Theme::Status::Bad)));
        row->setToolTip(2, item.detail);
    }
    m_checks->setVisible(m_checks->topLevelItemCount() > 0);
    m_job = 0;
    if (!result.ok) {
        qCInfo(lcApp).noquote() << "task not created:" << result.error;
        m_status->setText(NewTaskWizard::errorHtml(
            tr("Not created: %1").arg(result.error.toHtmlEscaped()).replace(u'\n', QStringLiteral("<br>"))));
        Q_EMIT completeChanged();
        Q_EMIT checked(false);
        return;
    }
    m_status->setText(NewTaskWizard::okHtml(
        tr("Created %1.").arg(QDir::toNativeSeparators(result.folder).toHtmlEscaped())));
    m_created = true;
    m_wizard->setCreated(result.folder, m_wizard->draft().name);
    Q_EMIT completeChanged();
    Q_EMIT checked(true);
    m_wizard->accept();
}
