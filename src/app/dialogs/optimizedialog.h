#pragma once

#include "hosts/hostconfig.h"
#include "llm/llmconfig.h"
#include "search/searchconfig.h"
#include "search/searchtask.h"

#include <QDialog>

#include <memory>
#include <optional>

namespace Ui {
class OptimizeDialog;
}
class AppContext;
class UserPrompts;

// Run > Optimize…: everything one search needs, prefilled from the active editor and the last run. The task
// is found from the file (a task's baseline, an exported kernel, a kernel of an original-layout dataset) or
// picked from the list; models per role are shown with a warning and a way to Tools > Models when a role has
// no model or its key is missing. Enter starts. The values are remembered for next time.
class OptimizeDialog : public QDialog
{
    Q_OBJECT
public:
    struct Kernel
    {
        QString name; // the tab's
        QString path; // empty for an unsaved kernel
        QString source;
    };
    struct Request
    {
        SearchTask task;
        SearchConfig config;
        QString host;
        bool useMemory = true;
    };

    // context: whose engine's llm.json the models come from; prompts: asks the wizard's questions (a reference
    // file), may be null.
    OptimizeDialog(AppContext *context, const Kernel &kernel, const QList<HostConfig> &hosts,
                   const QString &tasksDir, UserPrompts *prompts = nullptr, QWidget *parent = nullptr);
    ~OptimizeDialog() override;

    // The run-target choice of the toolbar, used unless the dialog remembers a choice of its own.
    void setDefaults(const QString &host, const QString &target, const QString &size);
    // The task the tab already has (chosen for F5 or made for it), used when the file does not tell one.
    void preferTask(const QJsonObject &ref, const QString &name);
    // Asks the engine for its llm.json again (after Tools > Models); the models line follows its answer.
    void refreshModels();
    // Valid after accept().
    Request request() const { return m_request; }
    Ui::OptimizeDialog *ui() const { return m_ui.get(); }

Q_SIGNALS:
    void modelsRequested(); // the user followed the link to Tools > Models
    // New Task from This Kernel… made a task, now chosen in the dialog.
    void taskCreated(const QJsonObject &ref, const QString &name);

public Q_SLOTS:
    void accept() override;

protected:
    void showEvent(QShowEvent *event) override;

private:
    void fitContents();
    void showModels(const std::optional<LlmConfig> &config, const QString &error);
    void newTask();
    void applyPreset();
    void showConfig(const SearchConfig &config);
    SearchConfig readConfig() const;
    void hostChanged();
    void remember() const;
    void restore();

    std::unique_ptr<Ui::OptimizeDialog> m_ui;
    AppContext *m_context;
    quint64 m_modelsJob = 0;
    Kernel m_kernel;
    QList<HostConfig> m_hosts;
    QString m_tasksDir;
    UserPrompts *m_prompts;
    Request m_request;
    SearchConfig m_base; // the last run's settings, for what the form does not show
    bool m_showingPreset = false;
};
