#pragma once

#include "hosts/hostconfig.h"
#include "llm/llmconfig.h"

#include <QWidget>

#include <optional>

class QCommandLinkButton;
class QGridLayout;
class QLabel;
class QTreeWidget;
class QTreeWidgetItem;

// What the window shows while no editor tab is open (a first start above all): the ways in. Open a task's
// baseline or a file, set up a model endpoint (Optimize needs one), add a host, or reopen a recent file. It
class AppContext;
// only asks; the main window acts, so the page holds no state beyond what it lists.
class WelcomePage : public QWidget
{
    Q_OBJECT
public:
    // context: where what is set up (llm.json, hosts.json) is read from, on the engine's thread; without one
    // the page does not say.
    explicit WelcomePage(AppContext *context = nullptr, QWidget *parent = nullptr);

    void setTasksDir(const QString &dir); // the shipped tasks; the user's are listed too
    // Lists the tasks, recent files and what is set up again (they change while the page is hidden).
    void refresh();

    QCommandLinkButton *openButton() const { return m_open; }
    QCommandLinkButton *newButton() const { return m_new; }
    QCommandLinkButton *ownKernelButton() const { return m_own; }
    QCommandLinkButton *modelsButton() const { return m_models; }
    QCommandLinkButton *hostsButton() const { return m_hosts; }
    QTreeWidget *tasks() const { return m_tasks; }
    QTreeWidget *recent() const { return m_recent; }
    QLabel *modelsStatus() const { return m_modelsStatus; }
    QLabel *hostsStatus() const { return m_hostsStatus; }

Q_SIGNALS:
    void openFileRequested(const QString &path);
    void openDialogRequested();
    void newKernelRequested();
    void ownKernelRequested(); // open a kernel of one's own, then make a task for it
    void modelsRequested();
    void hostsRequested();

protected:
    void showEvent(QShowEvent *event) override;
    void resizeEvent(QResizeEvent *event) override;

private:
    void arrangeActions(bool twoColumns);
    void refreshTasks();
    void refreshRecent();
    void refreshSetup();
    void showModelsSetup(const std::optional<LlmConfig> &llm, const QString &error);
    void showHostsSetup(const QList<HostConfig> &hosts, const QString &error);
    void openTask(QTreeWidgetItem *item);
    void openRecent(QTreeWidgetItem *item);

    QString m_tasksDir;
    QGridLayout *m_actions;
    bool m_twoColumns = false;
    QLabel *m_startTitle;
    QLabel *m_setUpTitle;
    QCommandLinkButton *m_open;
    QCommandLinkButton *m_new;
    QCommandLinkButton *m_own;
    QCommandLinkButton *m_models;
    QCommandLinkButton *m_hosts;
    AppContext *m_context;
    quint64 m_llmJob = 0;
    quint64 m_hostsJob = 0;
    QLabel *m_modelsStatus;
    QLabel *m_hostsStatus;
    QLabel *m_tasksStatus;
    QTreeWidget *m_tasks;
    QLabel *m_recentTitle;
    QTreeWidget *m_recent;
};
