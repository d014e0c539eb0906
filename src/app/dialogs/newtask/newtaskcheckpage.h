#pragma once

#include "search/taskcreation.h"

#include <QWizardPage>

class AppContext;
class NewTaskWizard;
class QLabel;
class QProgressBar;
class QTreeWidget;

// The wizard's last page: what will be created, then, on Check and Create, the runner's task check on this
// machine (nkisim) with each check's outcome; the check (and the reading of a chosen reference file) runs on
// the engine's thread (Engine::createTask). The wizard closes only when the task was created; a failed check
// keeps it open here with what failed, and nothing was written.
class NewTaskCheckPage : public QWizardPage
{
    Q_OBJECT
public:
    explicit NewTaskCheckPage(NewTaskWizard *wizard);
    ~NewTaskCheckPage() override;

    void initializePage() override;
    void cleanupPage() override;
    bool validatePage() override;
    bool isComplete() const override;

    bool running() const { return m_job != 0; }
    const TaskCreation::Result &lastResult() const { return m_result; }
    QTreeWidget *checks() const { return m_checks; }
    QLabel *statusLabel() const { return m_status; }

Q_SIGNALS:
    void checked(bool ok); // a check has ended, passed or not

private:
    void start();
    void finish(const TaskCreation::Result &result);

    NewTaskWizard *m_wizard;
    AppContext *m_context; // the wizard's, kept: the page may outlive the wizard's own members
    QLabel *m_summary;
    QProgressBar *m_progress;
    QLabel *m_status;
    QTreeWidget *m_checks;
    quint64 m_job = 0; // the engine's Check and Create running; 0 when none
    TaskCreation::Result m_result;
    bool m_created = false;
};
