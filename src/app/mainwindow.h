#pragma once

#include <QMainWindow>
#include <memory>

class EditorTabs;
class HostStatusWidget;
class LogDock;
class QActionGroup;
class QLabel;
class QMenu;
class TasksDock;
class UserPrompts;

class MainWindow : public QMainWindow
{
    Q_OBJECT
public:
    // prompts: who asks the user questions; null means real dialogs (tests pass a scripted one).
    explicit MainWindow(std::shared_ptr<UserPrompts> prompts = {}, QWidget *parent = nullptr);
    ~MainWindow() override;

    EditorTabs *editors() const { return m_editors; }
    TasksDock *tasksDock() const { return m_tasksDock; }
    LogDock *logDock() const { return m_logDock; }
    QMenu *recentMenu() const { return m_recentMenu; }
    QMenu *toolsMenu() const { return m_toolsMenu; }
    HostStatusWidget *hostStatus() const { return m_hostStatus; }
    bool openFile(const QString &path);

protected:
    void closeEvent(QCloseEvent *event) override;
    void dragEnterEvent(QDragEnterEvent *event) override;
    void dropEvent(QDropEvent *event) override;

private:
    void createActions();
    void rebuildRecentMenu();
    void restoreLayout();
    void saveLayout();
    void updateTitleAndStatus();
    void showAbout();
    void showHosts();
    void refreshHostNames();

    std::shared_ptr<UserPrompts> m_prompts;
    EditorTabs *m_editors;
    TasksDock *m_tasksDock;
    LogDock *m_logDock;
    QMenu *m_recentMenu = nullptr;
    QMenu *m_toolsMenu = nullptr;
    HostStatusWidget *m_hostStatus;
    QActionGroup *m_themeGroup = nullptr;
    QLabel *m_cursorLabel;
};
