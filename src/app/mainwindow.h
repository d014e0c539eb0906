#pragma once

#include <QMainWindow>
#include <memory>

class AppContext;
class CompareController;
class PortController;
class EditorCommands;
class EditorTabs;
class HostStatusWidget;
class LogDock;
class MemoryDock;
class ProfileDock;
class QActionGroup;
class QLabel;
class QMenu;
class ResultsDock;
class RunController;
class RunTargetBar;
class SearchDock;
class SessionsDock;
class StudyDock;
class TasksDock;
class UserPrompts;
class WelcomePage;
class QStackedWidget;

class MainWindow : public QMainWindow
{
    Q_OBJECT
public:
    // prompts: who asks the user questions; null means real dialogs (tests pass a scripted one).
    explicit MainWindow(std::shared_ptr<UserPrompts> prompts = {}, QWidget *parent = nullptr);
    ~MainWindow() override;

    EditorTabs *editors() const { return m_editors; }
    EditorCommands *editorCommands() const { return m_editorCommands; } // find, replace, go to line
    WelcomePage *welcomePage() const { return m_welcome; } // shown while no tab is open
    TasksDock *tasksDock() const { return m_tasksDock; }
    LogDock *logDock() const { return m_logDock; }
    ResultsDock *resultsDock() const { return m_resultsDock; }
    SearchDock *searchDock() const { return m_searchDock; }
    SessionsDock *sessionsDock() const { return m_sessionsDock; }
    ProfileDock *profileDock() const { return m_profileDock; }
    MemoryDock *memoryDock() const { return m_memoryDock; }
    StudyDock *studyDock() const { return m_studyDock; }
    AppContext *context() const { return m_context; }
    RunController *run() const { return m_run; }
    CompareController *compare() const { return m_compare; }
    PortController *port() const { return m_port; }
    RunTargetBar *runTarget() const { return m_runTarget; }
    QMenu *recentMenu() const { return m_recentMenu; }
    QMenu *toolsMenu() const { return m_toolsMenu; }
    HostStatusWidget *hostStatus() const { return m_hostStatus; }
    bool openFile(const QString &path);
    // The tabs open at the last quit (main() calls it; a test's fresh window starts empty).
    void restoreOpenTabs();
    void openSession(const QString &sessionId); // into the Search dock (--session)
    // Two kernel files side by side (--diff A B); a file that cannot be read is told in the window.
    bool compareFiles(const QString &left, const QString &right);

protected:
    void closeEvent(QCloseEvent *event) override;
    void showEvent(QShowEvent *event) override;
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
    void showModels();

    std::shared_ptr<UserPrompts> m_prompts;
    AppContext *m_context;
    EditorTabs *m_editors;
    EditorCommands *m_editorCommands;
    WelcomePage *m_welcome;
    QStackedWidget *m_center;
    TasksDock *m_tasksDock;
    LogDock *m_logDock;
    ResultsDock *m_resultsDock;
    SearchDock *m_searchDock;
    SessionsDock *m_sessionsDock;
    ProfileDock *m_profileDock;
    MemoryDock *m_memoryDock;
    StudyDock *m_studyDock;
    RunTargetBar *m_runTarget;
    RunController *m_run = nullptr;
    CompareController *m_compare = nullptr;
    PortController *m_port = nullptr;
    QMenu *m_recentMenu = nullptr;
    QMenu *m_toolsMenu = nullptr;
    HostStatusWidget *m_hostStatus;
    QActionGroup *m_themeGroup = nullptr;
    QLabel *m_cursorLabel;
    QSize m_firstStartSize; // set at a first start, until shown
};
