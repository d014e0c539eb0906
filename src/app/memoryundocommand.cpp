#include "memoryundocommand.h"

MemoryUndoCommand::MemoryUndoCommand(const QString &text, Step apply, Step revert,
                                     std::function<void()> failed)
    : QUndoCommand(text), m_apply(std::move(apply)), m_revert(std::move(revert)), m_failed(std::move(failed))
{
}

void MemoryUndoCommand::redo()
{
    if (!m_apply()) {
        setObsolete(true);
        m_failed();
    }
}

void MemoryUndoCommand::undo()
{
    if (!m_revert()) {
        setObsolete(true);
        m_failed();
    }
}
