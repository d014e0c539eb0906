#pragma once

#include <QList>
#include <QString>

// Where tasks live, nearest first: the project's `.accelopt/tasks/` (found by walking up from the user's
// kernel file, so a repository carries its tasks), the user's `~/.local/share/AccelOpt/tasks/`, and the shipped
// NKIBench tasks. The window and the CLI find tasks by this one rule.
class TaskLocations
{
public:
    struct Place
    {
        QString dir;    // absolute path of a folder holding task folders
        QString origin; // "project", "user" or "shipped"
    };

    // The nearest `.accelopt/tasks` folder at or above nearPath's folder, or empty.
    static QString projectTasksDir(const QString &nearPath);
    // Where a new project task for a file at nearPath goes: the folder projectTasksDir finds, else
    // `.accelopt/tasks` in the repository root above the file (a folder holding .git), else beside the file.
    static QString newProjectTasksDir(const QString &nearPath);
    static QString userTasksDir();
    // Every place to look, nearest first; folders that do not exist are left out.
    static QList<Place> search(const QString &nearPath, const QString &shippedDir);
    // For people: "project (/src/app/.accelopt/tasks)", "user (~/.local/share/AccelOpt/tasks)", "NKIBench".
    static QString describe(const Place &place);
};
