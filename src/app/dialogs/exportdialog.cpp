#include "exportdialog.h"

#include "appcontext.h"
#include "common/appsettings.h"
#include "export/kernelexporter.h"
#include "theme.h"
#include "ui_exportdialog.h"
#include "userprompts.h"

#include <QDesktopServices>
#include <QDir>
#include <QPushButton>
#include <QSettings>
#include <QUrl>

ExportDialog::ExportDialog(AppContext *context, UserPrompts *prompts, const QString &sessionId,
                           const QString &taskName, const QString &candidateId, QWidget *parent)
    : QDialog(parent), m_ui(std::make_unique<Ui::ExportDialog>()), m_context(context), m_prompts(prompts),
      m_sessionId(sessionId), m_candidateId(candidateId)
{
    m_ui->setupUi(this);
    m_ui->buttonBox->button(QDialogButtonBox::Ok)->setText(tr("&Export"));
    connect(m_ui->buttonBox, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(m_ui->buttonBox, &QDialogButtonBox::rejected, this, &QDialog::reject);
    m_ui->whatLabel->setText(
        tr("Writes %1 of session <b>%2</b> (%3) into your project, with a header saying where it came from "
           "and "
           "how fast it was.")
            .arg(candidateId.isEmpty() ? tr("the best kernel") : tr("candidate %1").arg(candidateId.left(8)),
                 sessionId.left(8), taskName.toHtmlEscaped()));
    m_ui->folderEdit->setText(AppSettings::exportFolder.value(QDir::homePath()));
    m_ui->reportCheck->setChecked(AppSettings::exportReport.value());
    SessionRecord record;
    record.id = sessionId;
    record.taskName = taskName;
    m_ui->fileEdit->setText(KernelExporter::defaultFileName(record));
    connect(m_ui->browseButton, &QPushButton::clicked, this, [this] {
        const QString folder = m_prompts->chooseFolder(this, tr("Export into"), m_ui->folderEdit->text());
        if (!folder.isEmpty())
            m_ui->folderEdit->setText(folder);
    });
    connect(context, &AppContext::exported, this, &ExportDialog::onExported);
}

ExportDialog::~ExportDialog() = default;

void ExportDialog::accept()
{
    QString name = m_ui->fileEdit->text().trimmed();
    QString problem;
    if (m_ui->folderEdit->text().trimmed().isEmpty()) {
        m_ui->problemLabel->setText(
            Theme::statusHtml(Theme::Status::Bad, tr("Choose the folder to export into.")));
        return;
    }
    if (!name.isEmpty() && !SessionExport::checkFileName(name, problem)) {
        m_ui->problemLabel->setText(Theme::statusHtml(Theme::Status::Bad, problem.toHtmlEscaped()));
        return;
    }
    send(false);
}

void ExportDialog::send(bool overwrite)
{
    SessionExport::Request request;
    request.sessionId = m_sessionId;
    request.candidateId = m_candidateId;
    request.folder = m_ui->folderEdit->text().trimmed();
    request.fileName = m_ui->fileEdit->text().trimmed();
    request.reports = m_ui->reportCheck->isChecked();
    request.overwrite = overwrite;
    m_ui->buttonBox->setEnabled(false);
    m_ui->problemLabel->setText(tr("Exporting…"));
    m_job = m_context->exportSession(request);
}

void ExportDialog::onExported(quint64 job, const SessionExport::Result &result)
{
    if (job != m_job)
        return;
    m_ui->buttonBox->setEnabled(true);
    if (!result.ok && !result.existing.isEmpty() &&
        result.error.contains(QStringLiteral("nothing was written"))) {
        if (m_prompts->confirm(
                this, tr("Replace files?"),
                tr("%1 already exist. Replace them?").arg(result.existing.join(QStringLiteral(", "))))) {
            send(true);
            return;
        }
        m_ui->problemLabel->setText(tr("Nothing was written. Choose another file name or folder."));
        return;
    }
    if (!result.ok) {
        m_ui->problemLabel->setText(Theme::statusHtml(Theme::Status::Bad, result.error.toHtmlEscaped()));
        return;
    }
    for (const SessionExport::Output &o : result.outputs)
        m_written << o.path;
    AppSettings::exportFolder.set(m_ui->folderEdit->text().trimmed());
    AppSettings::exportReport.set(m_ui->reportCheck->isChecked());
    const QString folder = m_ui->folderEdit->text().trimmed();
    QDialog::accept();
    if (m_prompts->confirm(
            parentWidget(), tr("Exported"),
            tr("Wrote %1. Open the folder?").arg(QDir::toNativeSeparators(m_written.value(0)))))
        QDesktopServices::openUrl(QUrl::fromLocalFile(folder));
}
