#pragma once

#include "study/studystate.h"

#include <QDockWidget>

class AppContext;
class QComboBox;
class QFileSystemWatcher;
class QLabel;
class QStackedWidget;
class QTimer;
class StudyView;

// The Study dock (issue 36): the studies `accelopt study` wrote beside the workspace
// (`<workspace>-studies/<id>.json`), newest first, and the chosen one in a StudyView. The folder and the
// chosen file are watched, so a study running in a terminal is followed as each turn is saved. With no study
// yet, one line says which command makes one. Studies are read through the core's StudyState; this dock
// parses nothing itself.
class StudyDock : public QDockWidget
{
    Q_OBJECT
public:
    explicit StudyDock(AppContext *context, QWidget *parent = nullptr);

    QString studiesDir() const { return m_dir; }
    QComboBox *studyChoice() const { return m_choice; }
    StudyView *view() const { return m_view; }
    QLabel *hint() const { return m_hint; }
    QLabel *problems() const { return m_problems; }
    QString currentStudy() const; // the chosen study's id; empty when there is none
    void refresh();               // reads the folder again now (the watcher calls it)

Q_SIGNALS:
    void openSessionRequested(const QString &sessionId);

private:
    void watch();
    void showStudy(int index);

    QString m_dir;
    QList<StudyState> m_studies;
    QFileSystemWatcher *m_watcher;
    QTimer *m_settle;
    QComboBox *m_choice;
    QLabel *m_problems;
    QStackedWidget *m_pages;
    QLabel *m_hint;
    StudyView *m_view;
};
