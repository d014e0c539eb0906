#pragma once

#include "export/sessionexport.h"

#include <QDialog>

#include <memory>

namespace Ui {
class ExportDialog;
}
class AppContext;
class UserPrompts;

// File > Export Best Kernel…: the project folder and the file name for a session's best kernel (or a chosen
// candidate), optionally with the report. An existing file is replaced only after the user confirms; when it
// is done the dialog offers to open the folder.
class ExportDialog : public QDialog
{
    Q_OBJECT
public:
    ExportDialog(AppContext *context, UserPrompts *prompts, const QString &sessionId, const QString &taskName,
                 const QString &candidateId = {}, QWidget *parent = nullptr);
    ~ExportDialog() override;

    Ui::ExportDialog *ui() const { return m_ui.get(); }
    // The files written, once accepted.
    QStringList written() const { return m_written; }

public Q_SLOTS:
    void accept() override;

private:
    void send(bool overwrite);
    void onExported(quint64 job, const SessionExport::Result &result);

    std::unique_ptr<Ui::ExportDialog> m_ui;
    AppContext *m_context;
    UserPrompts *m_prompts;
    QString m_sessionId;
    QString m_candidateId;
    quint64 m_job = 0;
    QStringList m_written;
};
