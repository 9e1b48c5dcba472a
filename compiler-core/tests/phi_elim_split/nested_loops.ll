target triple = "nvptx64-nvidia-cuda"
define void @f(ptr %p, i32 %n, i32 %m) {
entry:
  br label %outer
outer:
  %j = phi i32 [0, %entry], [%j1, %olatch]
  %acc = phi i32 [0, %entry], [%acc2, %olatch]
  br label %inner
inner:
  %i = phi i32 [0, %outer], [%i1, %inner]
  %acc1 = phi i32 [%acc, %outer], [%t, %inner]
  %t = add i32 %acc1, %i
  %i1 = add i32 %i, 1
  %ci = icmp slt i32 %i1, %m
  br i1 %ci, label %inner, label %olatch
olatch:
  %acc2 = phi i32 [%t, %inner]
  %j1 = add i32 %j, 1
  %cj = icmp slt i32 %j1, %n
  br i1 %cj, label %outer, label %exit
exit:
  %r = phi i32 [%acc2, %olatch]
  %r2 = add i32 %r, %j1
  store i32 %r2, ptr %p
  ret void
}
