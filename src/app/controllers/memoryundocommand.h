#pragma once

#include <QUndoCommand>

#include <functional>

// One change to the memory that the Memory dock can undo: a pin, an edit, a delete. Each side sends a request
// to the engine's thread and returns its job id; the answer comes later. When an answer says the change failed
// (the file went read-only, another program removed the row), the dock reports it and drops this command
// (MemoryDock::dropFailed), so the undo stack never claims a state the file does not have.
class MemoryUndoCommand : public QUndoCommand
{
public:
    using Step = std::function<quint64()>; // sends the change, returns its job id
    MemoryUndoCommand(const QString &text, Step apply, Step revert);

    void redo() override;
    void undo() override;
    quint64 job() const { return m_job; } // of the newest step sent
    bool lastWasRedo() const { return m_redone; }

private:
    Step m_apply;
    Step m_revert;
    quint64 m_job = 0;
    bool m_redone = false;
};
