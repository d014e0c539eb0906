#pragma once

class AppContext;
class EditorTabs;
class ProfileDock;
class QMainWindow;
class ResultsDock;
class RunTargetBar;
class SearchDock;
class SessionsDock;
class UserPrompts;

// The pieces of the main window that its controllers (RunController, CompareController) act on, filled once
// by MainWindow. Not owned; each controller uses the ones it needs.
struct WindowParts
{
    QMainWindow *window = nullptr;
    AppContext *context = nullptr;
    UserPrompts *prompts = nullptr;
    EditorTabs *editors = nullptr;
    RunTargetBar *target = nullptr;
    ResultsDock *results = nullptr;
    SearchDock *search = nullptr;
    SessionsDock *sessions = nullptr;
    ProfileDock *profile = nullptr;
};
