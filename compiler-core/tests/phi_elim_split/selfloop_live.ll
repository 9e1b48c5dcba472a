target triple = "nvptx64-nvidia-cuda"
define void @f(ptr %p, i32 %n) {
entry:
  br label %loop
loop:
  %i = phi i32 [0, %entry], [%i1, %loop]
  %i1 = add i32 %i, 1
  %c = icmp slt i32 %i1, %n
  br i1 %c, label %loop, label %exit
exit:
  %z = add i32 %i1, %i
  store i32 %z, ptr %p
  ret void
}
